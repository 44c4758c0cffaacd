package io.redq.sample;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.redq.queue.testkit.RedisServerTestConfiguration;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;

/**
 * The sample shop on a real Redis from the test kit, on a random port. Every test class
 * of a flow uses it, so that they share one application context.
 *
 * <p>
 * The properties make the flows deterministic: no load, no refused mails, short retries,
 * one mail worker (so that mails run in the order they are reserved), and a reindex
 * window that a test ends by hand rather than by waiting.
 *
 * @author Redq team
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.load.rate=0", "sample.mail.failure-rate=0", "sample.images.retry-delay=100ms",
				"sample.exports.retry-delay=100ms", "sample.search.reindex-window=1m",
				"redq.queues.mail.concurrency=1" })
@Import({ RedisServerTestConfiguration.class, SentJobs.class })
public @interface SampleShopTest {

}
