package io.redq.benchmarks;

import java.time.Duration;

import io.redq.queue.annotation.JobListenerConfigurer;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.core.JobDefaults;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.listener.JobContext;
import io.redq.queue.listener.JobHandler;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The application the benchmarks run: Spring Boot's auto-configuration with Redq, and a
 * {@link Recorder}. Each scenario adds {@link NoopJobs} or {@link IdleJobs}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
class BenchmarkConfiguration {

	/** The queue of the {@code noop} job. */
	static final String QUEUE = "bench";

	/** The job every scenario but idle-cost dispatches. */
	static final String JOB = "noop";

	@Bean
	Recorder recorder() {
		return new Recorder();
	}

	/**
	 * The no-op job, as an application writes it: a {@code @QueuedJob} method with a
	 * payload and the {@link JobContext}.
	 */
	static class NoopJobs {

		private final Recorder recorder;

		NoopJobs(Recorder recorder) {
			this.recorder = recorder;
		}

		@QueuedJob(name = JOB, queue = QUEUE)
		void noop(String payload, JobContext context) {
			this.recorder.started(context);
		}

	}

	/**
	 * {@code bench.queues} queues (10 by default) named {@code idle-0}, {@code idle-1},
	 * ..., each with a handler and none with jobs. A configurer rather than a class with
	 * a {@code @Bean} method: Spring registers nested classes with {@code @Bean} methods
	 * of a configuration class in every context, and these queues belong only to
	 * {@code idle-cost}.
	 */
	static class IdleJobs implements JobListenerConfigurer {

		private final int queues;

		IdleJobs(Environment environment) {
			this.queues = environment.getProperty("bench.queues", Integer.class, 10);
		}

		@Override
		public void configureJobListeners(JobListenerRegistry registry) {
			for (int i = 0; i < this.queues; i++) {
				registry.registerHandler(new IdleHandler(new JobDefinition("idle-" + i, "idle-" + i,
						JobDefaults.DEFAULT_MAX_ATTEMPTS, Duration.ZERO, JobDefaults.STANDARD.backoff(), null)));
			}
		}

	}

	private record IdleHandler(JobDefinition getDefinition) implements JobHandler {

		@Override
		public @Nullable Object readPayload(@Nullable JsonNode payload) {
			return payload;
		}

		@Override
		public @Nullable Object handle(@Nullable Object payload, JobContext context) {
			return null;
		}

	}

}
