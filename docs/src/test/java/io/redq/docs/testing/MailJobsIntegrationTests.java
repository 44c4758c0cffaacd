package io.redq.docs.testing;

// tag::class[]
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
// end::class[]

/**
 * The "Testing your jobs" example of {@code @WithRedis}; the page quotes it.
 *
 * @author Redq team
 */
// tag::class[]
@WithRedis
class MailJobsIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JobQueueAutoConfiguration.class))
		.withUserConfiguration(MailJobs.class);

	@Test
	void sendsReminder(RedisServer redis) {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			context.getBean(JobDispatcher.class).dispatch("send-reminder", "ada@example.com");
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(context.getBean(MailJobs.class).getReminded())
					.containsExactly("ada@example.com"));
		});
	}

	static class MailJobs {

		private final List<String> reminded = new CopyOnWriteArrayList<>();

		@QueuedJob(queue = "mail")
		void sendReminder(String email) {
			this.reminded.add(email);
		}

		List<String> getReminded() {
			return this.reminded;
		}

	}

}
// end::class[]
