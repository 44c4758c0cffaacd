package io.redq.queue.support.micrometer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.exporter.FinishedSpan;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelFinishedSpan;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.micrometer.tracing.test.simple.SpanAssert;
import io.micrometer.tracing.test.simple.SpansAssert;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.redq.queue.annotation.Backoff;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueContextRunner;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.listener.JobContext;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests that one trace spans the request that dispatched a job and the worker that ran
 * it, with the trace context carried through Redis in the job's headers. Spans are made
 * by Micrometer Tracing's OpenTelemetry bridge with W3C propagation, as in an
 * application, and kept in memory.
 *
 * @author Redq team
 */
@WithRedis
class JobObservationIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private static final String REQUEST = "GET /orders";

	private final InMemorySpanExporter exporter = InMemorySpanExporter.create();

	private final SdkTracerProvider tracerProvider = SdkTracerProvider.builder()
		.addSpanProcessor(SimpleSpanProcessor.create(this.exporter))
		.build();

	private final Tracer tracer;

	private final ObservationRegistry observationRegistry = ObservationRegistry.create();

	private final ApplicationContextRunner runner;

	JobObservationIntegrationTests(RedisServer redis) {
		io.opentelemetry.api.trace.Tracer otelTracer = this.tracerProvider.get("redq-tests");
		OtelCurrentTraceContext currentTraceContext = new OtelCurrentTraceContext();
		this.tracer = new OtelTracer(otelTracer, currentTraceContext, (event) -> {
		}, new OtelBaggageManager(currentTraceContext, List.of(), List.of()));
		OtelPropagator propagator = new OtelPropagator(
				ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otelTracer);
		// the handlers Spring Boot registers for a tracer
		this.observationRegistry.observationConfig()
			.observationHandler(new FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(this.tracer, propagator),
					new PropagatingReceiverTracingObservationHandler<>(this.tracer, propagator),
					new DefaultTracingObservationHandler(this.tracer)));
		this.runner = JobQueueContextRunner.on(redis)
			.withPropertyValues("redq.listener.shutdown-timeout=2s")
			.withBean(ObservationRegistry.class, () -> this.observationRegistry)
			.withBean(Tracer.class, () -> this.tracer)
			.withUserConfiguration(TracedJobs.class);
	}

	@AfterEach
	void closeTracerProvider() {
		this.tracerProvider.close();
	}

	@Test
	void workerContinuesTheTraceOfTheRequestThatDispatchedTheJob() {
		this.runner.withPropertyValues("redq.observation-enabled=true").run((context) -> {
			String id = inRequest(() -> dispatcher(context).dispatch("traced", "ok")).id();
			Run run = context.getBean(TracedJobs.class).awaitRun(id);
			List<FinishedSpan> spans = awaitSpans("process traced", 1);
			SpansAssert.assertThat(spans).hasNumberOfSpansEqualTo(3).haveSameTraceId();
			FinishedSpan request = span(spans, REQUEST);
			FinishedSpan dispatch = span(spans, "publish traced");
			FinishedSpan process = span(spans, "process traced");
			SpanAssert.assertThat(dispatch)
				.hasParentIdEqualTo(request.getSpanId())
				.hasKindEqualTo(Span.Kind.PRODUCER)
				.hasRemoteServiceNameEqualTo("redis")
				.hasTag("messaging.system", "redq")
				.hasTag("messaging.operation", "publish")
				.hasTag("messaging.destination.name", "traced")
				.hasTag("redq.job.name", "traced")
				.hasTag("messaging.message.id", id);
			SpanAssert.assertThat(process)
				.hasParentIdEqualTo(dispatch.getSpanId())
				.hasKindEqualTo(Span.Kind.CONSUMER)
				.hasRemoteServiceNameEqualTo("redis")
				.hasTag("messaging.system", "redq")
				.hasTag("messaging.operation", "process")
				.hasTag("messaging.destination.name", "traced")
				.hasTag("redq.job.name", "traced")
				.hasTag("messaging.message.id", id)
				.hasTag("redq.job.attempt", "1");
			// the context travelled in the job's envelope, and the handler ran in the
			// process span
			assertThat(run.headers()).hasEntrySatisfying("traceparent", (traceparent) -> assertThat(traceparent)
				.startsWith("00-" + dispatch.getTraceId() + "-" + dispatch.getSpanId() + "-"));
			assertThat(run.spanId()).isEqualTo(process.getSpanId());
		});
	}

	@Test
	void failedAttemptIsAnErrorOnItsProcessSpanAndTheRetryStaysInTheTrace() {
		this.runner.withPropertyValues("redq.observation-enabled=true").run((context) -> {
			String id = inRequest(() -> dispatcher(context).dispatch("traced", "fail-once")).id();
			List<FinishedSpan> spans = awaitSpans("process traced", 2);
			SpansAssert.assertThat(spans).hasNumberOfSpansEqualTo(4).haveSameTraceId();
			FinishedSpan dispatch = span(spans, "publish traced");
			List<FinishedSpan> attempts = spans.stream()
				.filter((span) -> span.getName().equals("process traced"))
				.toList();
			FinishedSpan first = attempts.stream()
				.filter((span) -> span.getTags().get("redq.job.attempt").equals("1"))
				.findFirst()
				.orElseThrow();
			FinishedSpan second = attempts.stream()
				.filter((span) -> span.getTags().get("redq.job.attempt").equals("2"))
				.findFirst()
				.orElseThrow();
			SpanAssert.assertThat(first)
				.hasParentIdEqualTo(dispatch.getSpanId())
				.hasTag("messaging.message.id", id)
				.assertThatThrowable()
				.hasMessage("first attempt fails");
			SpanAssert.assertThat(second).hasParentIdEqualTo(dispatch.getSpanId());
			assertThat(second.getError()).isNull();
		});
	}

	@Test
	void dispatchAllObservesEachJobAndEachWorkerContinuesItsOwnJob() {
		this.runner.withPropertyValues("redq.observation-enabled=true").run((context) -> {
			List<String> ids = inRequest(
					() -> dispatcher(context).dispatchAll(List.of(JobRequest.of("traced", "a").build(),
							JobRequest.of("other", "b").build(), JobRequest.of("traced", "c").build())))
				.stream()
				.map(DispatchResult::id)
				.toList();
			awaitSpans("process traced", 2);
			List<FinishedSpan> spans = awaitSpans("process other", 1);
			SpansAssert.assertThat(spans)
				.hasNumberOfSpansEqualTo(7)
				.haveSameTraceId()
				.hasNumberOfSpansWithNameEqualTo("publish traced", 2)
				.hasNumberOfSpansWithNameEqualTo("publish other", 1);
			FinishedSpan request = span(spans, REQUEST);
			for (String id : ids) {
				FinishedSpan dispatch = jobSpan(spans, id, "publish");
				SpanAssert.assertThat(dispatch).hasParentIdEqualTo(request.getSpanId());
				SpanAssert.assertThat(jobSpan(spans, id, "process")).hasParentIdEqualTo(dispatch.getSpanId());
			}
		});
	}

	@Test
	void asyncDispatchIsObservedInTheCallersTraceUntilTheJobIsInRedis() {
		this.runner.withPropertyValues("redq.observation-enabled=true").run((context) -> {
			CompletableFuture<DispatchResult> future = inRequest(
					() -> dispatcher(context).dispatchAsync("traced", "ok"));
			String id = future.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).id();
			List<FinishedSpan> spans = awaitSpans("process traced", 1);
			SpansAssert.assertThat(spans).hasNumberOfSpansEqualTo(3).haveSameTraceId();
			FinishedSpan dispatch = span(spans, "publish traced");
			SpanAssert.assertThat(dispatch)
				.hasParentIdEqualTo(span(spans, REQUEST).getSpanId())
				.hasTag("messaging.message.id", id);
			SpanAssert.assertThat(span(spans, "process traced")).hasParentIdEqualTo(dispatch.getSpanId());
		});
	}

	@Test
	void withoutThePropertyNothingIsObservedAndJobsCarryNoTraceContext() {
		this.runner.run((context) -> {
			String id = inRequest(
					() -> dispatcher(context).dispatch(JobRequest.of("traced", "ok").header("tenant", "acme").build()))
				.id();
			Run run = context.getBean(TracedJobs.class).awaitRun(id);
			assertThat(run.headers()).containsOnlyKeys("tenant");
			assertThat(run.spanId()).isNull();
			assertThat(spans()).extracting(FinishedSpan::getName).containsExactly(REQUEST);
		});
	}

	/**
	 * Run the action as a request of a web application would: in an observation, whose
	 * span is the root of the trace.
	 */
	private <T> T inRequest(Supplier<T> action) {
		return Observation.createNotStarted("http.server.requests", this.observationRegistry)
			.contextualName(REQUEST)
			.observe(action);
	}

	private List<FinishedSpan> awaitSpans(String name, int count) {
		await().atMost(DEADLINE)
			.until(() -> spans().stream().filter((span) -> span.getName().equals(name)).count() == count);
		return spans();
	}

	private List<FinishedSpan> spans() {
		return this.exporter.getFinishedSpanItems().stream().map(OtelFinishedSpan::fromOtel).toList();
	}

	private static FinishedSpan span(List<FinishedSpan> spans, String name) {
		List<FinishedSpan> named = spans.stream().filter((span) -> span.getName().equals(name)).toList();
		assertThat(named).as("spans named '%s'", name).hasSize(1);
		return named.get(0);
	}

	private static FinishedSpan jobSpan(List<FinishedSpan> spans, String id, String operation) {
		List<FinishedSpan> matching = spans.stream()
			.filter((span) -> id.equals(span.getTags().get("messaging.message.id"))
					&& operation.equals(span.getTags().get("messaging.operation")))
			.toList();
		assertThat(matching).as("%s spans of job %s", operation, id).hasSize(1);
		return matching.get(0);
	}

	private static JobDispatcher dispatcher(AssertableApplicationContext context) {
		return context.getBean(JobDispatcher.class);
	}

	/**
	 * What a handler saw.
	 */
	record Run(String id, Map<String, String> headers, @Nullable String spanId) {
	}

	@Configuration(proxyBeanMethods = false)
	static class TracedJobs {

		private final Tracer tracer;

		private final Queue<Run> runs = new ConcurrentLinkedQueue<>();

		TracedJobs(Tracer tracer) {
			this.tracer = tracer;
		}

		@QueuedJob(name = "traced", queue = "traced", backoff = @Backoff(delay = "0"))
		void traced(String payload, JobContext context) {
			record(context);
			if (payload.equals("fail-once") && context.getAttempt() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
		}

		@QueuedJob(name = "other", queue = "other")
		void other(String payload, JobContext context) {
			record(context);
		}

		private void record(JobContext context) {
			Span span = this.tracer.currentSpan();
			this.runs
				.add(new Run(context.getId(), context.getHeaders(), (span != null) ? span.context().spanId() : null));
		}

		Run awaitRun(String id) {
			await().atMost(DEADLINE).until(() -> this.runs.stream().anyMatch((run) -> run.id().equals(id)));
			return this.runs.stream().filter((run) -> run.id().equals(id)).findFirst().orElseThrow();
		}

	}

}
