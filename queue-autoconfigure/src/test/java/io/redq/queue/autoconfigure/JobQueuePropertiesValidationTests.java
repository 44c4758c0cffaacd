package io.redq.queue.autoconfigure;

import java.util.List;
import java.util.Objects;

import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that a bad {@code redq.*} value fails startup with Spring Boot's report that
 * names the property, its value and what is wrong, rather than with an exception of a
 * bean. The connection factory does not connect, so no Redis is needed.
 *
 * @author Redq team
 */
class JobQueuePropertiesValidationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
		.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class, JobQueueAutoConfiguration.class));

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			redq.listener.concurrency         | 0    | concurrency must be at least 1
			redq.listener.lease-time          | 1ms  | leaseTime must be at least 30ms
			redq.listener.batch-size          | 5000 | batchSize must be from 1 to 1000
			redq.listener.prefetch            | -1   | prefetch must not be negative
			redq.listener.poll-timeout        | 0s   | pollTimeout must be positive
			redq.listener.max-stalls          | -1   | maxStalls must not be negative
			redq.listener.max-running         | -1   | maxRunning must not be negative
			redq.queues.mail.group-max-running | -1  | groupMaxRunning must not be negative
			redq.job.backoff.multiplier       | 0.5  | Backoff multiplier must be at least 1.0
			redq.job.backoff.delay            | -1s  | Backoff delay must not be negative
			redq.queues.mail.concurrency      | 0    | concurrency must be at least 1
			redq.queues.mail.lease-time       | 1ms  | leaseTime must be at least 30ms
			redq.queues.mail.shards           | 0    | shards must be at least 1
			redq.key-prefix                   | a{b} | Invalid key prefix 'a{b}'
			redq.job.max-attempts             | 0    | maxAttempts must be at least 1; got 0
			redq.job.timeout                  | -1s  | timeout must not be negative (0 for no limit); got PT-1S
			redq.job.queue                    | a{b} | Invalid queue name 'a{b}'
			redq.job.backoff.max-delay        | -1s  | Backoff max delay must not be negative
			redq.job.backoff.jitter           | -1s  | Backoff jitter must not be negative
			redq.dispatcher.resend-window     | 0s   | resendWindow must be at least 1 ms; got PT0S
			redq.dispatcher.max-payload-size  | 0B   | maxPayloadSize must be positive; got 0B
			""")
	void badValueFailsStartupWithAReportNamingTheProperty(String property, String value, String reason) {
		this.runner.withPropertyValues(property + "=" + value).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).startsWith("Failed to bind properties under 'redq")
				.contains("Property: " + property)
				.contains("Value: \"" + value + "\"")
				.contains("Reason: ")
				.contains(reason);
			assertThat(analysis.getAction()).contains("Update your application's configuration");
		});
	}

	@Test
	void aResendWindowNoLongerThanTheRedisCommandTimeoutFailsStartupWithAReportNamingTheProperty() {
		this.runner.withPropertyValues("redq.dispatcher.resend-window=5s", "spring.data.redis.timeout=5s")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription())
					.contains("Invalid value '5000ms' for configuration property 'redq.dispatcher.resend-window'")
					.contains("must be longer than the Redis command timeout (spring.data.redis.timeout, 5000 ms)")
					.contains("Raise redq.dispatcher.resend-window or lower spring.data.redis.timeout");
				assertThat(analysis.getAction()).contains("Review the value of the property");
			});
	}

	/** What Spring Boot reports under "APPLICATION FAILED TO START". */
	private static FailureAnalysis analyze(Throwable failure) {
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class,
					ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
						.and(Environment.class, new StandardEnvironment()),
					SpringFactoriesLoader.FailureHandler
						.logging(LogFactory.getLog(JobQueuePropertiesValidationTests.class)));
		FailureAnalysis analysis = analyzers.stream()
			.map((analyzer) -> analyzer.analyze(failure))
			.filter(Objects::nonNull)
			.findFirst()
			.orElse(null);
		assertThat(analysis).as("a failure analysis of %s", failure).isNotNull();
		return analysis;
	}

}
