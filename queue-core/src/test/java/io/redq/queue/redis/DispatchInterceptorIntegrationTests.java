package io.redq.queue.redis;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.redq.queue.core.DispatchInterceptor;
import io.redq.queue.core.DispatchVetoedException;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.OutgoingJob;
import io.redq.queue.core.QueueStats;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of {@link DispatchInterceptor}s of a {@link RedisJobDispatcher}, against a real
 * Redis.
 *
 * @author Redq team
 */
class DispatchInterceptorIntegrationTests extends AbstractQueueIntegrationTests {

	private final JsonMapper jsonMapper = JsonMapper.shared();

	private final List<String> calls = new CopyOnWriteArrayList<>();

	private @Nullable RedisJobDispatcher dispatcher;

	@AfterEach
	void tearDown() {
		if (this.dispatcher != null) {
			this.dispatcher.stop();
		}
	}

	@Test
	void anInterceptorAddsHeadersThatTheJobCarriesAndHearsOfTheJobOnceItIsInRedis() {
		RedisJobDispatcher dispatcher = dispatcher(new DispatchInterceptor() {

			@Override
			public void beforeDispatch(OutgoingJob job) {
				DispatchInterceptorIntegrationTests.this.calls
					.add("before " + job.getJobName() + " " + job.getQueue() + " " + job.getPayload());
				job.getHeaders().put("tenant", "acme");
			}

			@Override
			public void afterDispatch(OutgoingJob job) {
				JobStatus.State state = DispatchInterceptorIntegrationTests.this.operations.status(QUEUE, job.getId())
					.state();
				DispatchInterceptorIntegrationTests.this.calls.add("after " + job.getId() + " " + state);
			}

		});
		String id = dispatcher.dispatch(JobRequest.of("ping", "p").header("trace", "t-1").build()).id();
		JsonNode headers = this.jsonMapper.readTree((String) this.template.opsForHash().get(this.keys.jobs(), id))
			.get("headers");
		assertThat(headers.get("trace").asString()).isEqualTo("t-1");
		assertThat(headers.get("tenant").asString()).isEqualTo("acme");
		assertThat(this.calls).containsExactly("before ping test p", "after " + id + " READY");
	}

	@Test
	void aVetoFailsTheWholeCallBeforeAnythingIsSentAndTellsTheInterceptorsThatPassedItsJobs() {
		RedisJobDispatcher dispatcher = dispatcher(new Recording("first", this.calls), new Veto());
		List<JobRequest> requests = List.of(JobRequest.of("ping", "ok").build(),
				JobRequest.of("ping", "forbidden").build());
		assertThatExceptionOfType(DispatchVetoedException.class).isThrownBy(() -> dispatcher.dispatchAll(requests))
			.withMessageStartingWith("Job 'ping' (queue 'test', id ")
			.withMessageEndingWith(
					") was not dispatched: " + Veto.class.getName() + " vetoed it: payload 'forbidden' is not allowed")
			.withCauseInstanceOf(IllegalArgumentException.class);
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
		assertThat(this.calls).containsExactly("first before ok", "first before forbidden",
				"first failed forbidden DispatchVetoedException", "first failed ok DispatchVetoedException");
	}

	@Test
	void interceptorsRunInTheirOrder() {
		RedisJobDispatcher dispatcher = dispatcher(new Recording("second", this.calls),
				new OrderedRecording("first", this.calls));
		dispatcher.dispatch("ping", "p");
		assertThat(this.calls).containsExactly("first before p", "second before p", "second after p", "first after p");
	}

	@Test
	void anAsynchronousDispatchIsReportedOnceRedisHasIt() throws Exception {
		RedisJobDispatcher dispatcher = dispatcher(new Recording("interceptor", this.calls));
		dispatcher.dispatchAsync("ping", "p").get(10, TimeUnit.SECONDS);
		assertThat(this.calls).containsExactly("interceptor before p", "interceptor after p");
		assertThat(this.operations.stats(QUEUE).ready()).isEqualTo(1);
	}

	@Test
	void aJobThatCannotBeWrittenIsReportedAsFailed() {
		RedisJobDispatcher dispatcher = dispatcher(new Recording("interceptor", this.calls));
		dispatcher.setMaxPayloadSize(64);
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> dispatcher.dispatch("ping", "x".repeat(100)));
		assertThat(this.calls).containsExactly("interceptor before " + "x".repeat(100),
				"interceptor failed " + "x".repeat(100) + " IllegalArgumentException");
	}

	private RedisJobDispatcher dispatcher(DispatchInterceptor... interceptors) {
		JobDefinition ping = new JobDefinition("ping", QUEUE, 3, Duration.ZERO, JobBackoff.DEFAULT, String.class);
		this.dispatcher = new RedisJobDispatcher(this.operations, new JobDefinitions() {

			@Override
			public @Nullable JobDefinition find(String name) {
				return name.equals("ping") ? ping : null;
			}

			@Override
			public Collection<JobDefinition> all() {
				return List.of(ping);
			}

		}, this.jsonMapper);
		this.dispatcher.setInterceptors(List.of(interceptors));
		return this.dispatcher;
	}

	static class Recording implements DispatchInterceptor {

		private final String name;

		private final List<String> calls;

		Recording(String name, List<String> calls) {
			this.name = name;
			this.calls = calls;
		}

		@Override
		public void beforeDispatch(OutgoingJob job) {
			this.calls.add(this.name + " before " + job.getPayload());
		}

		@Override
		public void afterDispatch(OutgoingJob job) {
			this.calls.add(this.name + " after " + job.getPayload());
		}

		@Override
		public void afterFailure(OutgoingJob job, Throwable exception) {
			this.calls.add(this.name + " failed " + job.getPayload() + " " + exception.getClass().getSimpleName());
		}

	}

	@Order(1)
	static class OrderedRecording extends Recording {

		OrderedRecording(String name, List<String> calls) {
			super(name, calls);
		}

	}

	static class Veto implements DispatchInterceptor {

		@Override
		public void beforeDispatch(OutgoingJob job) {
			if ("forbidden".equals(job.getPayload())) {
				throw new IllegalArgumentException("payload 'forbidden' is not allowed");
			}
		}

	}

}
