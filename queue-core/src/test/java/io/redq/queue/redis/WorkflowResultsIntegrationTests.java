package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.redq.queue.annotation.EnableJobQueue;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.config.JobQueueConfigUtils;
import io.redq.queue.core.BatchMember;
import io.redq.queue.core.BatchMemberResult;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobRequest;
import io.redq.queue.listener.JobBatch;
import io.redq.queue.listener.JobContext;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.TestConnections;
import io.redq.queue.test.WithRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of what batch callbacks and chain steps read of their members' and predecessors'
 * results through their {@link JobContext}, with containers on a real Redis.
 *
 * @author Redq team
 */
@WithRedis
class WorkflowResultsIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

	private final RedisServer redis;

	private RedisJobDispatcher dispatcher;

	private WorkflowJobs jobs;

	WorkflowResultsIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@BeforeEach
	void setUp() {
		this.redis.flushAll();
		LettuceConnectionFactory connectionFactory = TestConnections.connectionFactory(this.redis);
		this.closeables.push(connectionFactory::destroy);
		RedisJobQueueOperations operations = new RedisJobQueueOperations(connectionFactory, QueueScripts.load(),
				new Keyspace("redq"));
		JobListenerContainerFactory containerFactory = new JobListenerContainerFactory(
				operations.getListenerOperations(), JsonMapper.shared());
		containerFactory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(1));
		// hand-overs reach their batches at each migrator pass
		containerFactory.getContainerProperties().setPollTimeout(Duration.ofMillis(200));
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME,
				JobListenerContainerFactory.class, () -> containerFactory);
		context.registerBean(RedisJobQueueOperations.class, () -> operations);
		context.register(JobQueueConfiguration.class, WorkflowJobs.class);
		context.refresh();
		this.closeables.push(context);
		this.jobs = context.getBean(WorkflowJobs.class);
		this.dispatcher = new RedisJobDispatcher(operations, context.getBean(JobCatalog.class), JsonMapper.shared());
		this.closeables.push(this.dispatcher::stop);
	}

	@AfterEach
	void tearDown() throws Exception {
		while (!this.closeables.isEmpty()) {
			this.closeables.pop().close();
		}
	}

	@Test
	void aBatchCallbackReadsItsCountsAndPagesThroughTheResultsOfTheMembersThatSucceeded() {
		BatchResult batch = this.dispatcher.dispatchBatch(BatchRequest
			.of(List.of(JobRequest.of("price", "lamp").build(), JobRequest.of("price", "nothing").build(),
					JobRequest.of("broken", "chair").build(), JobRequest.of("stock", "desk").build()))
			.onComplete(JobRequest.of("report", "x").build())
			.build());
		Report report = this.jobs.report.join();
		assertThat(report.batchId()).isEqualTo(batch.batchId());
		assertThat(report.status().state()).isEqualTo(BatchStatus.State.FAILED);
		assertThat(report.status().succeeded()).isEqualTo(3);
		assertThat(report.status().dead()).isEqualTo(1);
		List<String> ids = batch.members().stream().map(DispatchResult::id).toList();
		assertThat(report.results()).containsExactlyInAnyOrder(result("prices", ids.get(0), "LAMP"),
				result("prices", ids.get(1), null), result("stock", ids.get(3), "DESK"));
		assertThat(report.pages()).as("pages of one, in the same order").isEqualTo(report.results());
	}

	@Test
	void aChainStepReadsTheResultOfTheStepBeforeIt() {
		this.dispatcher.dispatchChain(
				ChainRequest
					.of(JobRequest.of("price", "lamp").build(), JobRequest.of("wrap", "x").build(),
							JobRequest.of("price", "nothing").build(), JobRequest.of("deliver", "x").build())
					.build());
		assertThat(this.jobs.wrapped.join()).contains("LAMP");
		assertThat(this.jobs.delivered.join()).as("the step before returned nothing").isEmpty();
	}

	@Test
	void aJobThatIsNotAChainStepAfterTheFirstIsToldItHasNoStepBeforeIt() {
		String id = this.dispatcher.dispatch("deliver", "alone").id();
		assertThat(this.jobs.refused.join()).isEqualTo(
				"Job " + id + " is not a chain step after the first: it has no step before it to read the result of");
		assertThat(this.jobs.batchOfAPlainJob.join()).isEmpty();
	}

	private static BatchMemberResult<String> result(String queue, String id, @Nullable String value) {
		return new BatchMemberResult<>(new BatchMember(queue, id), Optional.ofNullable(value));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableJobQueue
	static class JobQueueConfiguration {

	}

	record Report(String batchId, BatchStatus status, List<BatchMemberResult<String>> results,
			List<BatchMemberResult<String>> pages) {
	}

	@Configuration(proxyBeanMethods = false)
	static class WorkflowJobs {

		final CompletableFuture<Report> report = new CompletableFuture<>();

		final CompletableFuture<Optional<String>> wrapped = new CompletableFuture<>();

		final CompletableFuture<Optional<String>> delivered = new CompletableFuture<>();

		final CompletableFuture<String> refused = new CompletableFuture<>();

		final CompletableFuture<Optional<JobBatch>> batchOfAPlainJob = new CompletableFuture<>();

		@QueuedJob(name = "price", queue = "prices")
		@Nullable String price(String item) {
			return item.equals("nothing") ? null : item.toUpperCase();
		}

		@QueuedJob(name = "stock", queue = "stock")
		String stock(String item) {
			return item.toUpperCase();
		}

		@QueuedJob(name = "broken", queue = "stock", maxAttempts = 1)
		String broken(String item) {
			throw new IllegalStateException("no " + item);
		}

		@QueuedJob(name = "report", queue = "reports")
		void report(String payload, JobContext context) {
			JobBatch batch = context.getBatch().orElseThrow();
			List<BatchMemberResult<String>> pages = new ArrayList<>();
			for (int offset = 0;; offset++) {
				List<BatchMemberResult<String>> page = batch.getResults(String.class, offset, 1);
				if (page.isEmpty()) {
					break;
				}
				pages.addAll(page);
			}
			this.report
				.complete(new Report(batch.getId(), batch.getStatus(), batch.getResults(String.class, 0, 1000), pages));
		}

		@QueuedJob(name = "wrap", queue = "stock")
		void wrap(String payload, JobContext context) {
			this.wrapped.complete(context.getPreviousResult(String.class));
		}

		@QueuedJob(name = "deliver", queue = "reports")
		void deliver(String payload, JobContext context) {
			if (payload.equals("alone")) {
				try {
					context.getPreviousResult(String.class);
				}
				catch (IllegalStateException ex) {
					this.refused.complete(ex.getMessage());
				}
				this.batchOfAPlainJob.complete(context.getBatch());
				return;
			}
			this.delivered.complete(context.getPreviousResult(String.class));
		}

	}

}
