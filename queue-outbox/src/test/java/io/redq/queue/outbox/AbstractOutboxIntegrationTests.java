package io.redq.queue.outbox;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.DispatchInterceptor;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.OutgoingJob;
import io.redq.queue.core.Timer;
import io.redq.queue.metrics.MicrometerJobMetrics;
import io.redq.queue.outbox.autoconfigure.JobOutboxAutoConfiguration;
import io.redq.queue.outbox.autoconfigure.OutboxHealthIndicator;
import io.redq.queue.redis.BatchCommand;
import io.redq.queue.redis.BatchCreationOperations;
import io.redq.queue.redis.ChainCommand;
import io.redq.queue.redis.ChainOperations;
import io.redq.queue.redis.EnqueueOperations;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import io.redq.queue.transaction.TransactionAwareJobDispatcher;
import org.junit.jupiter.api.BeforeEach;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.SimpleStatusAggregator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests of the transactional outbox on a real Redis and a real database, which each
 * subclass provides: dispatches inside a transaction become rows of the outbox table in
 * that transaction, and the relay moves them to Redis once.
 *
 * @author Redq team
 */
@WithRedis
abstract class AbstractOutboxIntegrationTests {

	private RedisServer redis;

	@BeforeEach
	void setUp(RedisServer redis) {
		this.redis = redis;
		redis.flushAll();
	}

	/**
	 * Return the properties that connect the context to the database, and create the
	 * outbox table in it when needed.
	 * @return the properties
	 */
	protected abstract String[] databaseProperties();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					JobQueueAutoConfiguration.class, JobOutboxAutoConfiguration.class))
			.withPropertyValues(this.redis.springProperties())
			.withPropertyValues(databaseProperties())
			.withPropertyValues("redq.jobs.send-invoice.queue=mail", "redq.jobs.audit.queue=audit",
					"redq.jobs.close-auction.queue=auctions", "redq.outbox.relay.enabled=false",
					"redq.recurring.enabled=false");
	}

	private void run(Consumer<Outbox> test, String... properties) {
		runner().withPropertyValues(properties).run((context) -> {
			assertThat(context).hasNotFailed();
			Outbox outbox = new Outbox(context);
			outbox.jdbc.update("DELETE FROM " + JdbcJobOutbox.TABLE);
			outbox.jdbc.update("DELETE FROM " + JdbcJobOutbox.PARKED_TABLE);
			test.accept(outbox);
		});
	}

	@Test
	void commitWritesTheJobsAsRowsThatTheRelaySends() {
		run((outbox) -> {
			List<String> ids = new ArrayList<>();
			outbox.transaction.executeWithoutResult((status) -> {
				ids.add(outbox.dispatcher.dispatch("send-invoice", "order-1").id());
				ids.add(outbox.dispatcher.dispatch("send-invoice", "order-2").id());
				outbox.dispatcher.dispatch("audit", "placed");
			});
			assertThat(outbox.ready("mail")).as("not sent by the commit").isEmpty();
			assertThat(outbox.rows()).as("one row per queue").isEqualTo(2);
			assertThat(outbox.relay().relay()).isEqualTo(2);
			assertThat(outbox.ready("mail")).containsExactlyElementsOf(ids);
			assertThat(outbox.ready("audit")).hasSize(1);
			assertThat(outbox.rows()).isZero();
		});
	}

	@Test
	void rowsAreWrittenInTheTransactionSoThatAFailedWriteRollsItBack() {
		run((outbox) -> {
			outbox.jdbc.execute("CREATE TABLE orders (id VARCHAR(50) PRIMARY KEY)");
			outbox.jdbc.execute("ALTER TABLE " + JdbcJobOutbox.TABLE + " RENAME TO redq_outbox_away");
			try {
				assertThatExceptionOfType(RuntimeException.class)
					.isThrownBy(() -> outbox.transaction.executeWithoutResult((status) -> {
						outbox.jdbc.update("INSERT INTO orders VALUES ('order-1')");
						outbox.dispatcher.dispatch("send-invoice", "order-1");
					}));
			}
			finally {
				outbox.jdbc.execute("ALTER TABLE redq_outbox_away RENAME TO " + JdbcJobOutbox.TABLE);
			}
			assertThat(outbox.jdbc.queryForObject("SELECT COUNT(*) FROM orders", Long.class)).isZero();
			outbox.jdbc.execute("DROP TABLE orders");
		});
	}

	@Test
	void rollbackWritesNothing() {
		run((outbox) -> {
			AtomicReference<CompletableFuture<DispatchResult>> future = new AtomicReference<>();
			outbox.transaction.executeWithoutResult((status) -> {
				outbox.dispatcher.dispatch("send-invoice", "order-1");
				future.set(outbox.dispatcher.dispatchAsync("send-invoice", "order-2"));
				status.setRollbackOnly();
			});
			assertThat(outbox.rows()).isZero();
			assertThat(future.get()).isCancelled();
		});
	}

	@Test
	void nestedTransactionRolledBackToItsSavepointWritesOnlyTheOthers() {
		run((outbox) -> {
			TransactionTemplate nested = new TransactionTemplate(outbox.transactionManager);
			nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
			List<String> ids = new ArrayList<>();
			outbox.transaction.executeWithoutResult((status) -> {
				ids.add(outbox.dispatcher.dispatch("send-invoice", "before").id());
				nested.executeWithoutResult((inner) -> {
					outbox.dispatcher.dispatch("send-invoice", "rolled-back");
					inner.setRollbackOnly();
				});
				nested
					.executeWithoutResult((inner) -> ids.add(outbox.dispatcher.dispatch("send-invoice", "kept").id()));
			});
			outbox.relay().relay();
			assertThat(outbox.ready("mail")).containsExactlyElementsOf(ids);
		});
	}

	@Test
	void requiresNewTransactionWritesItsOwnRowsWhenItCommits() {
		run((outbox) -> {
			TransactionTemplate requiresNew = new TransactionTemplate(outbox.transactionManager);
			requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
			AtomicReference<String> inner = new AtomicReference<>();
			outbox.transaction.executeWithoutResult((status) -> {
				outbox.dispatcher.dispatch("send-invoice", "outer");
				requiresNew.executeWithoutResult(
						(innerStatus) -> inner.set(outbox.dispatcher.dispatch("send-invoice", "inner").id()));
				status.setRollbackOnly();
			});
			outbox.relay().relay();
			assertThat(outbox.ready("mail")).containsExactly(inner.get());
		});
	}

	@Test
	void tenThousandJobsOfOneTransactionAreTenRows() {
		run((outbox) -> {
			List<String> ids = new ArrayList<>();
			outbox.transaction.executeWithoutResult((status) -> {
				for (int i = 0; i < 10_000; i++) {
					ids.add(outbox.dispatcher.dispatch("send-invoice", "order-" + i).id());
				}
			});
			assertThat(outbox.rows()).isEqualTo(10);
			assertThat(outbox.status().jobs()).isEqualTo(10_000);
			assertThat(outbox.relay().relay()).isEqualTo(10);
			assertThat(outbox.ready("mail")).containsExactlyElementsOf(ids);
		});
	}

	@Test
	void twoRelaysOnOneTableSendEachRowOnce() {
		run((outbox) -> {
			int transactions = 200;
			List<String> ids = new ArrayList<>();
			for (int i = 0; i < transactions; i++) {
				int order = i;
				outbox.transaction.executeWithoutResult((status) -> {
					ids.add(outbox.dispatcher.dispatch("send-invoice", "order-" + order).id());
					ids.add(outbox.dispatcher.dispatch("send-invoice", "order-" + order + "-copy").id());
				});
			}
			AtomicInteger relayed = new AtomicInteger();
			List<CompletableFuture<Void>> relays = new ArrayList<>();
			for (int r = 0; r < 2; r++) {
				JdbcOutboxRelay relay = outbox.relay();
				relay.setBatchSize(3);
				relays.add(CompletableFuture.runAsync(() -> {
					int rows;
					do {
						rows = relay.relay();
						relayed.addAndGet(rows);
					}
					while (rows > 0);
				}));
			}
			CompletableFuture.allOf(relays.toArray(CompletableFuture[]::new)).orTimeout(2, TimeUnit.MINUTES).join();
			assertThat(relayed.get()).as("each row relayed once").isEqualTo(transactions);
			assertThat(outbox.rows()).isZero();
			assertThat(outbox.ready("mail")).hasSize(ids.size()).containsExactlyInAnyOrderElementsOf(ids);
		});
	}

	@Test
	void rowSentAgainAfterARelayDiedChangesNothingEvenWhenItsJobsCompleted() {
		run((outbox) -> {
			String id = outbox.dispatcher.dispatch("send-invoice", "order-1").id();
			assertThat(id).isNotNull();
			outbox.transaction.executeWithoutResult((status) -> outbox.dispatcher
				.dispatch(JobRequest.of("send-invoice", "order-2").id("invoice-2").build()));
			// a relay applies the row and dies before deleting it
			String nonce = outbox.jdbc.queryForObject("SELECT nonce FROM " + JdbcJobOutbox.TABLE, String.class);
			String steps = outbox.jdbc.queryForObject("SELECT steps FROM " + JdbcJobOutbox.TABLE, String.class);
			outbox.enqueueOperations.enqueueOnce("mail", nonce + ".0",
					((OutboxStep.Enqueue) OutboxFormat.read(steps).get(0)).commands(),
					JdbcOutboxRelay.DEFAULT_RESEND_WINDOW);
			// the job runs and completes: gone from Redis
			assertThat(outbox.operations.cancel("mail", "invoice-2")).isTrue();
			assertThat(outbox.relay().relay()).isOne();
			assertThat(outbox.ready("mail")).as("not created again").containsExactly(id);
			assertThat(outbox.rows()).isZero();
		});
	}

	@Test
	void jobsOfARowCountAsDispatchedWhenTheRelaySendsThemButNoDuplicate() {
		runner().withUserConfiguration(MeteredConfiguration.class).run((context) -> {
			Outbox outbox = new Outbox(context);
			outbox.jdbc.update("DELETE FROM " + JdbcJobOutbox.TABLE);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			JobRequest pending = JobRequest.of("send-invoice", "order-1")
				.id("invoice-1")
				.delay(Duration.ofMinutes(5))
				.build();
			outbox.dispatcher.dispatch(pending);
			outbox.transaction.executeWithoutResult((status) -> {
				outbox.dispatcher.dispatch(pending);
				outbox.dispatcher.dispatch("send-invoice", "order-2");
				outbox.dispatcher.dispatch("send-invoice", "order-3");
			});
			assertThat(dispatched(meters, "mail", "send-invoice")).as("committed, not in Redis yet").isOne();
			outbox.relayAll();
			assertThat(outbox.ready("mail")).hasSize(2);
			assertThat(dispatched(meters, "mail", "send-invoice")).as("the two created by the relay, not the one kept")
				.isEqualTo(3);
		});
	}

	@Test
	void payloadThatCannotBeWrittenFailsTheDispatchInsideTheTransaction() {
		run((outbox) -> {
			assertThatExceptionOfType(RuntimeException.class)
				.isThrownBy(() -> outbox.transaction.executeWithoutResult((status) -> {
					outbox.dispatcher.dispatch("send-invoice", "order-1");
					outbox.dispatcher.dispatch("send-invoice", new Unwritable());
				}))
				.withStackTraceContaining("cannot be written");
			assertThat(outbox.rows()).isZero();
		});
	}

	@Test
	void asyncDispatchCompletesAtTheCommitAsDeferred() {
		run((outbox) -> {
			AtomicReference<CompletableFuture<DispatchResult>> future = new AtomicReference<>();
			outbox.transaction.executeWithoutResult((status) -> future.set(
					outbox.dispatcher.dispatchAsync(JobRequest.of("send-invoice", "order-1").id("invoice-1").build())));
			assertThat(future.get()).isCompletedWithValue(new DispatchResult("invoice-1", Outcome.DEFERRED));
			assertThat(outbox.rows()).isOne();
		});
	}

	@Test
	void readOnlyTransactionCannotWriteSoItsJobsAreSentAfterTheCommit() {
		run((outbox) -> {
			outbox.transaction.setReadOnly(true);
			String id = outbox.transaction
				.execute((status) -> outbox.dispatcher.dispatch("send-invoice", "order-1").id());
			assertThat(outbox.rows()).isZero();
			await().untilAsserted(() -> assertThat(outbox.ready("mail")).containsExactly(id));
		});
	}

	@Test
	void backlogAndLagAreMetersAndHealth() {
		run((outbox) -> {
			outbox.transaction.executeWithoutResult((status) -> {
				outbox.dispatcher.dispatch("send-invoice", "order-1");
				outbox.dispatcher.dispatch("send-invoice", "order-2");
			});
			MeterRegistry registry = new SimpleMeterRegistry();
			outbox.context.getBean(OutboxMeterBinder.class).bindTo(registry);
			assertThat(registry.get("redq.outbox.backlog").gauge().value()).isEqualTo(2);
			await().untilAsserted(
					() -> assertThat(registry.get("redq.outbox.lag").timeGauge().value(TimeUnit.MILLISECONDS))
						.isPositive());
			OutboxHealthIndicator health = outbox.context.getBean(OutboxHealthIndicator.class);
			assertThat(health.health(true).getDetails()).containsEntry("backlog", 2L);
			await().untilAsserted(
					() -> assertThat(health.health(true).getStatus()).isEqualTo(OutboxHealthIndicator.LAGGING));
			assertThat(new SimpleStatusAggregator().getAggregateStatus(Status.UP, health.health(true).getStatus()))
				.as("a lagging outbox does not take the application's health down")
				.isEqualTo(Status.UP);
			outbox.relay().relay();
			assertThat(registry.get("redq.outbox.backlog").gauge().value()).isZero();
			assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
		}, "redq.outbox.health.max-lag=1ms");
	}

	@Test
	void runningRelaySendsTheJobsOfACommit() {
		run((outbox) -> {
			String id = outbox.transaction
				.execute((status) -> outbox.dispatcher.dispatch("send-invoice", "order-1").id());
			await().untilAsserted(() -> assertThat(outbox.ready("mail")).containsExactly(id));
			await().untilAsserted(() -> assertThat(outbox.rows()).isZero());
		}, "redq.outbox.relay.enabled=true");
	}

	@Test
	void withTheOutboxDisabledJobsAreSentAfterTheCommit() {
		runner().withPropertyValues("redq.outbox.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(JdbcJobOutbox.class);
			TransactionTemplate transaction = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			String id = transaction
				.execute((status) -> context.getBean(JobDispatcher.class).dispatch("send-invoice", "order-1").id());
			await().untilAsserted(() -> assertThat(
					context.getBean(StringRedisTemplate.class).opsForList().range("redq:{mail}:ready", 0, -1))
				.containsExactly(id));
		});
	}

	@Test // issue 37
	void batchOfACommittedTransactionIsOneRowFromWhichTheRelayCreatesItAndItsCallbackRunsOnce() {
		runner().withUserConfiguration(BatchJobsConfiguration.class).run((context) -> {
			Outbox outbox = new Outbox(context);
			outbox.jdbc.update("DELETE FROM " + JdbcJobOutbox.TABLE);
			BatchResult batch = outbox.transaction.execute((status) -> outbox.dispatcher.dispatchBatch(BatchRequest
				.of(List.of(JobRequest.of("batch-member", "a").build(), JobRequest.of("batch-member", "b").build(),
						JobRequest.of("batch-audit", "c").build()))
				.onSuccess(JobRequest.of("batch-done", "succeeded").build())
				.onComplete(JobRequest.of("batch-done", "completed").build())
				.build()));
			assertThat(batch.members()).extracting(DispatchResult::outcome).containsOnly(Outcome.DEFERRED);
			assertThat(outbox.rows()).as("the whole batch, of two queues, in one row").isOne();
			assertThat(outbox.dispatcher.findBatch(batch.batchId())).as("nothing in Redis before the relay").isEmpty();
			assertThat(outbox.relay().relay()).isOne();
			BatchJobs jobs = context.getBean(BatchJobs.class);
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(jobs.done).containsExactlyInAnyOrder("succeeded", "completed"));
			assertThat(jobs.members).containsExactlyInAnyOrder("a", "b", "c");
			assertThat(outbox.dispatcher.findBatch(batch.batchId())).get()
				.extracting(BatchStatus::state, BatchStatus::total, BatchStatus::succeeded)
				.containsExactly(BatchStatus.State.SUCCEEDED, 3L, 3L);
			assertThat(outbox.redis.opsForHash()
				.multiGet("redq:batch:{" + batch.batchId() + "}:meta", List.of("success", "complete")))
				.as("each callback delivered, none left to deliver again")
				.containsOnlyNulls();
		});
	}

	@Test // issue 37
	void batchOfATransactionThatRolledBackIsNeitherWrittenNorSent() {
		run((outbox) -> {
			AtomicReference<BatchResult> batch = new AtomicReference<>();
			outbox.transaction.executeWithoutResult((status) -> {
				batch.set(outbox.dispatcher.dispatchBatch(BatchRequest.of(List.of(invoice("a")))
					.onComplete(JobRequest.of("audit", "done").build())
					.build()));
				status.setRollbackOnly();
			});
			assertThat(outbox.rows()).isZero();
			outbox.relayAll();
			assertThat(outbox.dispatcher.findBatch(batch.get().batchId())).isEmpty();
			assertThat(outbox.redis.keys("redq:batch:*")).isEmpty();
			assertThat(outbox.ready("mail")).isEmpty();
		});
	}

	@Test // issue 37
	void batchRowAppliedAgainAfterARelayDiedIsOneBatchEvenWhenMembersFinishedMeanwhile() {
		run((outbox) -> {
			BatchResult batch = outbox.transaction.execute(
					(status) -> outbox.dispatcher.dispatchBatch(BatchRequest.of(List.of(invoice("a"), invoice("b")))
						.onComplete(JobRequest.of("audit", "done").build())
						.build()));
			// a relay applies the row and dies before deleting it; a member then succeeds
			String nonce = outbox.jdbc.queryForObject("SELECT nonce FROM " + JdbcJobOutbox.TABLE, String.class);
			String steps = outbox.jdbc.queryForObject("SELECT steps FROM " + JdbcJobOutbox.TABLE, String.class);
			BatchCommand command = ((OutboxStep.Batch) OutboxFormat.read(steps).get(0)).batch();
			BatchCreationOperations batches = outbox.operations.getBatchOperations().getCreationOperations();
			batches.createOnce(command, nonce + ".0", JdbcOutboxRelay.DEFAULT_RESEND_WINDOW);
			ListenerOperations listener = outbox.operations.getListenerOperations();
			succeed(listener, "mail");
			assertThat(listener.handOver("mail")).isOne();
			assertThat(outbox.relay().relay()).isOne();
			assertThat(outbox.rows()).isZero();
			assertThat(outbox.dispatcher.findBatch(batch.batchId())).get()
				.extracting(BatchStatus::state, BatchStatus::total, BatchStatus::pending, BatchStatus::succeeded)
				.as("the finished member not pending again")
				.containsExactly(BatchStatus.State.RUNNING, 2L, 1L, 1L);
			assertThat(outbox.ready("mail")).as("no member created again").hasSize(1);
			succeed(listener, "mail");
			listener.handOver("mail");
			batches.createOnce(command, nonce + ".0", JdbcOutboxRelay.DEFAULT_RESEND_WINDOW);
			assertThat(outbox.dispatcher.findBatch(batch.batchId())).get()
				.extracting(BatchStatus::state, BatchStatus::succeeded)
				.containsExactly(BatchStatus.State.SUCCEEDED, 2L);
			assertThat(outbox.ready("mail")).isEmpty();
			assertThat(outbox.ready("audit")).as("the callback enqueued once")
				.containsExactly(batch.batchId() + ":complete");
		});
	}

	@Test // issue 37
	void batchRowThatFailedHalfWayIsCompletedWhenAppliedAgainWithoutItsFinishedMembersPendingAgain() {
		run((outbox) -> {
			BatchResult batch = outbox.transaction.execute((status) -> outbox.dispatcher
				.dispatchBatch(BatchRequest.of(List.of(invoice("a"), JobRequest.of("audit", "b").build())).build()));
			// the members' second queue refuses the relay's first attempt: a newer data
			// model
			outbox.redis.opsForValue().set("redq:{audit}:model", "99");
			assertThat(outbox.relay().relay()).isOne();
			assertThat(outbox.rows()).as("kept for a retry").isOne();
			ListenerOperations listener = outbox.operations.getListenerOperations();
			succeed(listener, "mail");
			listener.handOver("mail");
			outbox.redis.delete("redq:{audit}:model");
			outbox.jdbc.update("UPDATE " + JdbcJobOutbox.TABLE + " SET next_attempt_at = 0");
			assertThat(outbox.relay().relay()).isOne();
			assertThat(outbox.rows()).isZero();
			assertThat(outbox.dispatcher.findBatch(batch.batchId())).get()
				.extracting(BatchStatus::state, BatchStatus::pending, BatchStatus::succeeded)
				.as("the member that finished meanwhile is not pending again")
				.containsExactly(BatchStatus.State.RUNNING, 1L, 1L);
			assertThat(outbox.ready("mail")).isEmpty();
			assertThat(outbox.ready("audit")).containsExactly(batch.members().get(1).id());
		});
	}

	@Test // issue 37
	void withTheOutboxDisabledABatchIsSentAfterTheCommitOrNotAtAll() {
		runner().withPropertyValues("redq.outbox.enabled=false").run((context) -> {
			TransactionTemplate transaction = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			BatchResult rolledBack = transaction.execute((status) -> {
				status.setRollbackOnly();
				return dispatcher.dispatchBatch(BatchRequest.of(List.of(invoice("rolled-back"))).build());
			});
			BatchResult batch = transaction.execute((status) -> {
				BatchResult result = dispatcher.dispatchBatch(BatchRequest.of(List.of(invoice("a"), invoice("b")))
					.onComplete(JobRequest.of("audit", "done").build())
					.build());
				assertThat(dispatcher.findBatch(result.batchId())).as("not before the commit").isEmpty();
				return result;
			});
			assertThat(batch.members()).extracting(DispatchResult::outcome).containsOnly(Outcome.DEFERRED);
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			await().untilAsserted(() -> assertThat(dispatcher.findBatch(batch.batchId())).get()
				.extracting(BatchStatus::state)
				.isEqualTo(BatchStatus.State.RUNNING));
			assertThat(redis.opsForList().range("redq:{mail}:ready", 0, -1))
				.containsExactlyElementsOf(batch.members().stream().map(DispatchResult::id).toList());
			assertThat(dispatcher.findBatch(rolledBack.batchId())).isEmpty();
		});
	}

	@Test // issue 37
	void chainOfACommittedTransactionIsOneRowFromWhichTheRelayCreatesItAndItsStepsRunInOrder() {
		runner().withUserConfiguration(BatchJobsConfiguration.class, MeteredConfiguration.class).run((context) -> {
			Outbox outbox = new Outbox(context);
			outbox.jdbc.update("DELETE FROM " + JdbcJobOutbox.TABLE);
			ChainResult chain = outbox.transaction.execute((status) -> outbox.dispatcher.dispatchChain(ChainRequest
				.of(JobRequest.of("batch-member", "a").build(), JobRequest.of("batch-audit", "b").build(),
						JobRequest.of("batch-member", "c").build())
				.onFailure(JobRequest.of("batch-done", "failed").build())
				.build()));
			assertThat(outbox.rows()).as("the whole chain, of two queues, in one row").isOne();
			assertThat(outbox.jdbc.queryForObject("SELECT steps FROM " + JdbcJobOutbox.TABLE, String.class))
				.as("a row of the version that holds chains")
				.startsWith("{\"v\":3,");
			assertThat(outbox.dispatcher.findChain(chain.chainId())).as("nothing in Redis before the relay").isEmpty();
			assertThat(outbox.relay().relay()).isOne();
			BatchJobs jobs = context.getBean(BatchJobs.class);
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(outbox.dispatcher.findChain(chain.chainId())).get()
					.extracting(ChainStatus::state)
					.isEqualTo(ChainStatus.State.SUCCEEDED));
			assertThat(jobs.members).as("each step once, after the one before").containsExactly("a", "b", "c");
			assertThat(jobs.done).as("no on-failure job").isEmpty();
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(dispatched(meters, "members", "batch-member")).as("each step as it entered its queue")
				.isEqualTo(2);
			assertThat(dispatched(meters, "audits", "batch-audit")).isOne();
			assertThat(dispatched(meters, "callbacks", "batch-done")).isZero();
		});
	}

	@Test // issue 37
	void chainOfATransactionThatRolledBackIsNeitherWrittenNorSent() {
		run((outbox) -> {
			AtomicReference<ChainResult> chain = new AtomicReference<>();
			outbox.transaction.executeWithoutResult((status) -> {
				chain.set(outbox.dispatcher
					.dispatchChain(ChainRequest.of(invoice("a"), JobRequest.of("audit", "b").build())
						.onFailure(JobRequest.of("audit", "failed").build())
						.build()));
				status.setRollbackOnly();
			});
			assertThat(outbox.rows()).isZero();
			outbox.relayAll();
			assertThat(outbox.dispatcher.findChain(chain.get().chainId())).isEmpty();
			assertThat(outbox.redis.keys("redq:chain:*")).isEmpty();
			assertThat(outbox.ready("mail")).isEmpty();
			assertThat(outbox.ready("audit")).isEmpty();
		});
	}

	@Test // issue 37
	void chainRowAppliedAgainAfterARelayDiedIsOneChainEvenWhenItsStepsFinishedMeanwhile() {
		run((outbox) -> {
			ChainResult chain = outbox.transaction.execute((status) -> outbox.dispatcher
				.dispatchChain(ChainRequest.of(invoice("a"), JobRequest.of("audit", "b").build()).build()));
			// a relay applies the row and dies before deleting it; the first step then
			// succeeds and the chain enqueues the second
			String nonce = outbox.jdbc.queryForObject("SELECT nonce FROM " + JdbcJobOutbox.TABLE, String.class);
			String steps = outbox.jdbc.queryForObject("SELECT steps FROM " + JdbcJobOutbox.TABLE, String.class);
			ChainCommand command = ((OutboxStep.Chain) OutboxFormat.read(steps).get(0)).chain();
			ChainOperations chains = new ChainOperations(outbox.operations.getStore());
			chains.createOnce(command, nonce + ".0", JdbcOutboxRelay.DEFAULT_RESEND_WINDOW);
			ListenerOperations listener = outbox.operations.getListenerOperations();
			succeed(listener, "mail");
			assertThat(listener.handOver("mail")).isOne();
			assertThat(outbox.ready("audit")).containsExactly(chain.stepIds().get(1));
			assertThat(outbox.relay().relay()).isOne();
			assertThat(outbox.rows()).isZero();
			assertThat(outbox.ready("mail")).as("the first step not created again").isEmpty();
			assertThat(outbox.ready("audit")).as("the second step enqueued once").hasSize(1);
			assertThat(outbox.dispatcher.findChain(chain.chainId())).get()
				.extracting(ChainStatus::state, (status) -> status.steps().get(0).state())
				.containsExactly(ChainStatus.State.RUNNING, ChainStatus.StepState.SUCCEEDED);
			succeed(listener, "audit");
			listener.handOver("audit");
			chains.createOnce(command, nonce + ".0", JdbcOutboxRelay.DEFAULT_RESEND_WINDOW);
			assertThat(outbox.dispatcher.findChain(chain.chainId())).get()
				.extracting(ChainStatus::state)
				.as("an ended chain not created again")
				.isEqualTo(ChainStatus.State.SUCCEEDED);
			assertThat(outbox.ready("mail")).isEmpty();
			assertThat(outbox.ready("audit")).isEmpty();
		});
	}

	@Test // issue 37
	void withTheOutboxDisabledAChainIsSentAfterTheCommitOrNotAtAll() {
		runner().withPropertyValues("redq.outbox.enabled=false").run((context) -> {
			TransactionTemplate transaction = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			ChainResult rolledBack = transaction.execute((status) -> {
				status.setRollbackOnly();
				return dispatcher.dispatchChain(ChainRequest.of(invoice("rolled-back"), invoice("later")).build());
			});
			ChainResult chain = transaction.execute((status) -> {
				ChainResult result = dispatcher
					.dispatchChain(ChainRequest.of(invoice("a"), JobRequest.of("audit", "b").build()).build());
				assertThat(dispatcher.findChain(result.chainId())).as("not before the commit").isEmpty();
				return result;
			});
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			await().untilAsserted(() -> assertThat(dispatcher.findChain(chain.chainId())).get()
				.extracting(ChainStatus::state)
				.isEqualTo(ChainStatus.State.RUNNING));
			assertThat(redis.opsForList().range("redq:{mail}:ready", 0, -1)).containsExactly(chain.stepIds().get(0));
			assertThat(redis.opsForList().range("redq:{audit}:ready", 0, -1)).as("not before the first step succeeded")
				.isEmpty();
			assertThat(dispatcher.findChain(rolledBack.chainId())).isEmpty();
		});
	}

	@Test // issue 37: nesting
	void nestedWorkflowOfACommittedTransactionIsOneRowFromWhichTheRelayCreatesEveryLevelOnce() {
		runner().withUserConfiguration(BatchJobsConfiguration.class).run((context) -> {
			Outbox outbox = new Outbox(context);
			outbox.jdbc.update("DELETE FROM " + JdbcJobOutbox.TABLE);
			BatchResult batch = outbox.transaction
				.execute((status) -> outbox.dispatcher.dispatchBatch(BatchRequest.builder()
					.member(JobRequest.of("batch-member", "a").build())
					.chain(ChainRequest.builder()
						.step(JobRequest.of("batch-member", "b").build())
						.step(BatchRequest
							.of(List.of(JobRequest.of("batch-audit", "c").build(),
									JobRequest.of("batch-audit", "d").build()))
							.onComplete(JobRequest.of("batch-done", "inner").build())
							.build())
						.step(JobRequest.of("batch-member", "e").build())
						.onFailure(JobRequest.of("batch-done", "failed").build())
						.build())
					.onSuccess(JobRequest.of("batch-done", "succeeded").build())
					.onComplete(JobRequest.of("batch-done", "completed").build())
					.build()));
			assertThat(outbox.rows()).as("the whole tree in one row").isOne();
			assertThat(outbox.jdbc.queryForObject("SELECT steps FROM " + JdbcJobOutbox.TABLE, String.class))
				.as("a row of the version that holds nesting")
				.startsWith("{\"v\":4,");
			assertThat(outbox.dispatcher.findBatch(batch.batchId())).as("nothing in Redis before the relay").isEmpty();
			assertThat(outbox.relay().relay()).isOne();
			BatchJobs jobs = context.getBean(BatchJobs.class);
			await().atMost(Duration.ofSeconds(60))
				.untilAsserted(() -> assertThat(outbox.dispatcher.findBatch(batch.batchId())).get()
					.extracting(BatchStatus::state)
					.isEqualTo(BatchStatus.State.SUCCEEDED));
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(jobs.done).hasSize(3));
			assertThat(jobs.members).as("each job once").containsExactlyInAnyOrder("a", "b", "c", "d", "e");
			List<String> chain = jobs.members.stream().filter((member) -> !member.equals("a")).toList();
			assertThat(chain.get(0)).as("no step before its predecessor succeeded").isEqualTo("b");
			assertThat(chain.get(3)).isEqualTo("e");
			assertThat(jobs.done).as("each callback once").containsExactlyInAnyOrder("inner", "succeeded", "completed");
		});
	}

	@Test // issue 37: nesting
	void nestedWorkflowOfATransactionThatRolledBackIsNeitherWrittenNorSent() {
		run((outbox) -> {
			AtomicReference<BatchResult> batch = new AtomicReference<>();
			outbox.transaction.executeWithoutResult((status) -> {
				batch.set(outbox.dispatcher.dispatchBatch(threeLevels()));
				status.setRollbackOnly();
			});
			assertThat(outbox.rows()).isZero();
			outbox.relayAll();
			assertThat(outbox.dispatcher.findBatch(batch.get().batchId())).isEmpty();
			assertThat(outbox.redis.keys("redq:batch:*")).isEmpty();
			assertThat(outbox.redis.keys("redq:chain:*")).isEmpty();
			assertThat(outbox.ready("mail")).isEmpty();
			assertThat(outbox.ready("audit")).isEmpty();
		});
	}

	@Test // issue 37: nesting
	void nestedRowAppliedAgainAfterARelayDiedOrFailedHalfWayCreatesEachLevelOnce() {
		run((outbox) -> {
			BatchResult batch = outbox.transaction.execute((status) -> outbox.dispatcher.dispatchBatch(threeLevels()));
			String chainId = batch.members().get(1).id();
			String innerId = chainId + ":1";
			// the deepest level's second queue refuses the relay's first attempt (a newer
			// data model), after the outer batch, the chain and the inner batch were
			// created and the mail members enqueued: a relay that failed between sends
			outbox.redis.opsForValue().set("redq:{audit}:model", "99");
			assertThat(outbox.relay().relay()).isOne();
			assertThat(outbox.rows()).as("kept for a retry").isOne();
			ListenerOperations listener = outbox.operations.getListenerOperations();
			assertThat(outbox.ready("mail")).hasSize(2);
			succeed(listener, "mail");
			succeed(listener, "mail");
			listener.handOver("mail");
			outbox.redis.delete("redq:{audit}:model");
			outbox.jdbc.update("UPDATE " + JdbcJobOutbox.TABLE + " SET next_attempt_at = 0");
			String nonce = outbox.jdbc.queryForObject("SELECT nonce FROM " + JdbcJobOutbox.TABLE, String.class);
			String steps = outbox.jdbc.queryForObject("SELECT steps FROM " + JdbcJobOutbox.TABLE, String.class);
			BatchCommand command = ((OutboxStep.Batch) OutboxFormat.read(steps).get(0)).batch();
			assertThat(outbox.relay().relay()).isOne();
			assertThat(outbox.rows()).isZero();
			// a relay that applied the row and died before deleting it applies it again
			BatchCreationOperations batches = outbox.operations.getBatchOperations().getCreationOperations();
			batches.createOnce(command, nonce + ".0", JdbcOutboxRelay.DEFAULT_RESEND_WINDOW);
			assertThat(outbox.ready("mail")).as("no member created again").isEmpty();
			assertThat(outbox.ready("audit")).as("the deepest members once").hasSize(1);
			assertThat(outbox.dispatcher.findBatch(innerId)).get()
				.extracting(BatchStatus::state, BatchStatus::total, BatchStatus::pending, BatchStatus::succeeded)
				.as("the member that finished meanwhile is not pending again")
				.containsExactly(BatchStatus.State.RUNNING, 2L, 1L, 1L);
			assertThat(outbox.dispatcher.findBatch(batch.batchId())).get()
				.extracting(BatchStatus::state, BatchStatus::total, BatchStatus::pending, BatchStatus::succeeded)
				.containsExactly(BatchStatus.State.RUNNING, 2L, 1L, 1L);
			succeed(listener, "audit");
			listener.handOver("audit");
			assertThat(outbox.ready("mail")).as("the step after the batch, once it succeeded")
				.containsExactly(chainId + ":2");
			succeed(listener, "mail");
			listener.handOver("mail");
			batches.createOnce(command, nonce + ".0", JdbcOutboxRelay.DEFAULT_RESEND_WINDOW);
			assertThat(outbox.dispatcher.findBatch(batch.batchId())).get()
				.extracting(BatchStatus::state, BatchStatus::succeeded)
				.containsExactly(BatchStatus.State.SUCCEEDED, 2L);
			assertThat(outbox.dispatcher.findChain(chainId)).get()
				.extracting(ChainStatus::state)
				.isEqualTo(ChainStatus.State.SUCCEEDED);
			assertThat(outbox.ready("mail")).isEmpty();
			assertThat(outbox.ready("audit")).as("each callback enqueued once")
				.containsExactlyInAnyOrder(innerId + ":complete", batch.batchId() + ":complete");
		});
	}

	@Test // issue 37: nesting
	void withTheOutboxDisabledANestedWorkflowIsSentAfterTheCommitOrNotAtAll() {
		runner().withPropertyValues("redq.outbox.enabled=false").run((context) -> {
			TransactionTemplate transaction = new TransactionTemplate(
					context.getBean(PlatformTransactionManager.class));
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			BatchResult rolledBack = transaction.execute((status) -> {
				status.setRollbackOnly();
				return dispatcher.dispatchBatch(threeLevels());
			});
			BatchResult batch = transaction.execute((status) -> {
				BatchResult result = dispatcher.dispatchBatch(threeLevels());
				assertThat(dispatcher.findBatch(result.batchId())).as("not before the commit").isEmpty();
				return result;
			});
			String chainId = batch.members().get(1).id();
			await().untilAsserted(() -> assertThat(dispatcher.findBatch(batch.batchId())).get()
				.extracting(BatchStatus::state)
				.isEqualTo(BatchStatus.State.RUNNING));
			assertThat(dispatcher.findChain(chainId)).get()
				.extracting(ChainStatus::state)
				.isEqualTo(ChainStatus.State.RUNNING);
			assertThat(dispatcher.findBatch(chainId + ":1")).get()
				.extracting(BatchStatus::state, BatchStatus::total)
				.containsExactly(BatchStatus.State.RUNNING, 2L);
			assertThat(dispatcher.findBatch(rolledBack.batchId())).isEmpty();
			assertThat(dispatcher.findChain(rolledBack.members().get(1).id())).isEmpty();
		});
	}

	/**
	 * A batch of an invoice and a chain whose first step is a batch of an invoice and an
	 * audit, then an invoice: three levels, created by one send.
	 */
	private static BatchRequest threeLevels() {
		return BatchRequest.builder()
			.member(invoice("a"))
			.chain(ChainRequest.builder()
				.step(BatchRequest.of(List.of(invoice("b"), JobRequest.of("audit", "c").build()))
					.onComplete(JobRequest.of("audit", "inner").build())
					.build())
				.step(invoice("d"))
				.build())
			.onComplete(JobRequest.of("audit", "done").build())
			.build();
	}

	private static JobRequest invoice(String order) {
		return JobRequest.of("send-invoice", order).build();
	}

	private static void succeed(ListenerOperations listener, String queue) {
		ReservedJob job = listener.reserve(queue, 1, Duration.ofMinutes(1)).jobs().get(0);
		assertThat(listener.getLeaseOperations().ack(queue, List.of(job.lease()))).isEmpty();
	}

	@Test
	void jobsWrittenToTheOutboxMeetTheDispatchInterceptorsAsTheyAreStoredOrNot() {
		List<String> calls = new CopyOnWriteArrayList<>();
		DispatchInterceptor interceptor = new DispatchInterceptor() {

			@Override
			public void beforeDispatch(OutgoingJob job) {
				calls.add("before " + job.getPayload());
				job.getHeaders().put("tenant", "acme");
			}

			@Override
			public void afterDispatch(OutgoingJob job) {
				calls.add("after " + job.getPayload());
			}

			@Override
			public void afterFailure(OutgoingJob job, Throwable exception) {
				calls.add("failed " + job.getPayload());
			}

		};
		runner().withBean(DispatchInterceptor.class, () -> interceptor).run((context) -> {
			Outbox outbox = new Outbox(context);
			outbox.jdbc.update("DELETE FROM " + JdbcJobOutbox.TABLE);
			String id = outbox.transaction.execute((status) -> {
				String committed = outbox.dispatcher.dispatch("send-invoice", "order-1").id();
				assertThat(calls).as("in the transaction, at the dispatch").containsExactly("before order-1");
				return committed;
			});
			outbox.transaction.executeWithoutResult((status) -> {
				outbox.dispatcher.dispatch("send-invoice", "order-2");
				status.setRollbackOnly();
			});
			assertThat(calls).containsExactly("before order-1", "after order-1", "before order-2", "failed order-2");
			outbox.relayAll();
			// the headers the interceptor added at the dispatch travel with the row
			assertThat(outbox.redis.opsForHash().get("redq:{mail}:jobs", id)).asString()
				.contains("\"headers\":{\"tenant\":\"acme\"}");
		});
	}

	@Test // issue 35, item 1
	void dispatchesMadeAfterTheRowsWereWrittenAreWrittenTooOrRefused() {
		run((outbox) -> {
			List<DispatchResult> results = new ArrayList<>();
			List<Exception> refused = new ArrayList<>();
			outbox.transaction.executeWithoutResult((status) -> {
				results.add(outbox.dispatcher.dispatch("send-invoice", "inside"));
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

					@Override
					public void beforeCommit(boolean readOnly) {
						results.add(outbox.dispatcher.dispatch("send-invoice", "before-commit"));
					}

					@Override
					public void beforeCompletion() {
						try {
							outbox.dispatcher.dispatch("send-invoice", "before-completion");
						}
						catch (IllegalStateException ex) {
							refused.add(ex);
						}
					}

					@Override
					public void afterCommit() {
						for (int i = 0; i < 200; i++) {
							results.add(outbox.dispatcher.dispatch("send-invoice", "after-commit-" + i));
						}
					}

				});
			});
			assertThat(refused).singleElement()
				.extracting(Exception::getMessage, InstanceOfAssertFactories.STRING)
				.contains("while its transaction completes");
			assertThat(results).hasSize(202)
				.allSatisfy((result) -> assertThat(result.outcome()).isEqualTo(Outcome.DEFERRED));
			outbox.relayAll();
			assertThat(outbox.ready("mail")).as("every job answered with an id is in Redis, in order")
				.containsExactlyElementsOf(results.stream().map(DispatchResult::id).toList());
		});
	}

	@Test // issue 35, item 2
	void timerCallsApplyInOrderWithTheDispatchesTheyFollow() {
		run((outbox) -> {
			Instant at = Instant.now().plus(Duration.ofHours(1));
			Instant moved = at.plus(Duration.ofHours(1));
			outbox.transaction.executeWithoutResult((status) -> {
				outbox.dispatcher.schedule("close-auction", 1L, at);
				outbox.dispatcher.cancelTimer("close-auction", 1L);
				outbox.dispatcher.schedule("close-auction", 2L, at);
				outbox.dispatcher.reschedule("close-auction", 2L, moved);
				outbox.dispatcher.schedule("close-auction", 3L, at);
				outbox.dispatcher.schedule("close-auction", 4L, at);
			});
			outbox.transaction.executeWithoutResult((status) -> {
				outbox.dispatcher.cancelTimer("close-auction", 3L);
				outbox.dispatcher.reschedule("close-auction", 4L, moved);
			});
			String cancelled = outbox.transaction
				.execute((status) -> outbox.dispatcher.dispatch("send-invoice", "order-1").id());
			outbox.transaction.executeWithoutResult((status) -> outbox.dispatcher.cancel("mail", cancelled));
			assertThat(outbox.ready("mail")).as("nothing applied before the relay").isEmpty();
			outbox.relayAll();
			assertThat(outbox.dispatcher.findTimer("close-auction", 1L)).as("scheduled and cancelled").isEmpty();
			assertThat(outbox.dispatcher.findTimer("close-auction", 2L)).map(Timer::dueAt)
				.as("scheduled and moved")
				.contains(Instant.ofEpochMilli(moved.toEpochMilli()));
			assertThat(outbox.dispatcher.findTimer("close-auction", 3L)).as("cancelled in a later transaction")
				.isEmpty();
			assertThat(outbox.dispatcher.findTimer("close-auction", 4L)).map(Timer::dueAt)
				.as("moved in a later transaction")
				.contains(Instant.ofEpochMilli(moved.toEpochMilli()));
			assertThat(outbox.ready("mail")).as("cancelled in a later transaction").isEmpty();
		});
	}

	@Test // issue 35, item 3
	void failingRowWaitsWithBackoffWhileOtherQueuesFlowThenIsMovedAside() {
		run((outbox) -> {
			String poisonJobs = outbox.operations.getStore().keys("poison").jobs();
			outbox.redis.opsForValue().set(poisonJobs, "not a hash");
			String first = outbox.commit(JobRequest.of("send-invoice", "first").build());
			String poisoned = outbox.commit(JobRequest.of("audit", "poisoned").queue("poison").build());
			String other = outbox.commit(JobRequest.of("audit", "other").build());
			String behind = outbox.commit(JobRequest.of("audit", "behind").queue("poison").build());
			String last = outbox.commit(JobRequest.of("send-invoice", "last").build());
			JdbcOutboxRelay relay = outbox.relay();
			relay.setMaxAttempts(2);
			assertThat(relay.relay()).isEqualTo(5);
			assertThat(outbox.ready("mail")).containsExactly(first, last);
			assertThat(outbox.ready("audit")).containsExactly(other);
			assertThat(
					outbox.jdbc.queryForList("SELECT queue FROM " + JdbcJobOutbox.TABLE + " ORDER BY id", String.class))
				.as("the rows ahead of the failed one are deleted; the one behind it waits")
				.containsExactly("poison", "poison");
			assertThat(outbox.jdbc
				.queryForObject("SELECT last_error FROM " + JdbcJobOutbox.TABLE + " WHERE attempts = 1", String.class))
				.contains("WRONGTYPE");
			relay.relay();
			assertThat(outbox.ready("poison")).as("the row behind the failed one waits for it").isEmpty();
			await().until(() -> {
				relay.relay();
				return outbox.status().parked() == 1;
			});
			assertThat(outbox.outbox.parkedRows(0, 10)).singleElement().satisfies((row) -> {
				assertThat(row.queue()).isEqualTo("poison");
				assertThat(row.jobNames()).containsExactly("audit");
				assertThat(row.attempts()).isEqualTo(2);
				assertThat(row.reason()).contains("Failed 2 time(s)").contains("WRONGTYPE");
			});
			assertThat(outbox.context.getBean(OutboxHealthIndicator.class).health(true).getStatus())
				.isEqualTo(OutboxHealthIndicator.PARKED);
			outbox.redis.delete(poisonJobs);
			await().untilAsserted(() -> {
				relay.relay();
				assertThat(outbox.ready("poison")).containsExactly(behind);
			});
			assertThat(outbox.outbox.retryParked(outbox.outbox.parkedRows(0, 1).get(0).id())).isTrue();
			outbox.relayAll();
			assertThat(outbox.ready("poison")).containsExactly(behind, poisoned);
			assertThat(outbox.status()).isEqualTo(new OutboxStatus(0, 0, null, 0));
		});
	}

	@Test // issue 35, item 6
	void rowsAreWrittenInRedqsOwnFormatWhateverTheApplicationsJsonSettings() {
		run((outbox) -> {
			String id = outbox.commit(JobRequest.of("send-invoice", "order-1").build());
			String steps = outbox.jdbc.queryForObject("SELECT steps FROM " + JdbcJobOutbox.TABLE, String.class);
			assertThat(steps).startsWith("{\"v\":1,\"steps\":[{\"op\":\"enqueue\",\"jobs\":[{\"id\":\"" + id + "\"")
				.contains("\"delay\":0,\"ifPending\":\"keep\",\"unique\":\"until-completed\",\"body\":");
			outbox.relayAll();
			assertThat(outbox.ready("mail")).containsExactly(id);
		}, "spring.jackson.property-naming-strategy=SNAKE_CASE");
	}

	@Test // issue 35, item 6
	void rowOfAnotherFormatVersionIsMovedAsideAndItsQueueGoesOn() {
		run((outbox) -> {
			outbox.jdbc.update("INSERT INTO " + JdbcJobOutbox.TABLE + " (queue, nonce, steps, job_count, created_at) "
					+ "VALUES ('mail', 'n1', '{\"v\":99,\"steps\":[]}', 1, 0)");
			String id = outbox.commit(JobRequest.of("send-invoice", "order-1").build());
			outbox.relayAll();
			assertThat(outbox.ready("mail")).containsExactly(id);
			assertThat(outbox.outbox.parkedRows(0, 10)).singleElement()
				.extracting(JdbcJobOutbox.ParkedRow::reason, InstanceOfAssertFactories.STRING)
				.contains("format version 99");
		});
	}

	@Test // issue 35, item 3
	void parkedRowsAreReadInPagesAfterAnId() {
		run((outbox) -> {
			for (int i = 0; i < 3; i++) {
				outbox.jdbc.update("INSERT INTO " + JdbcJobOutbox.TABLE + " (queue, nonce, steps, job_count, "
						+ "created_at) VALUES ('mail', ?, '{\"v\":99,\"steps\":[]}', 1, 0)", "n" + i);
			}
			outbox.relayAll();
			List<JdbcJobOutbox.ParkedRow> first = outbox.outbox.parkedRows(0, 2);
			assertThat(first).hasSize(2).allSatisfy((row) -> assertThat(row.jobNames()).isEmpty());
			List<JdbcJobOutbox.ParkedRow> second = outbox.outbox.parkedRows(first.get(1).id(), 2);
			assertThat(second).singleElement()
				.extracting(JdbcJobOutbox.ParkedRow::id)
				.isNotIn(first.get(0).id(), first.get(1).id());
			assertThat(outbox.outbox.parkedRows(second.get(0).id(), 2)).isEmpty();
			assertThatIllegalArgumentException().isThrownBy(() -> outbox.outbox.parkedRows(0, 101))
				.withMessageContaining("between 1 and 100");
		});
	}

	@Test // issue 35, item 7
	void rowFirstSentLongerAgoThanTheResendWindowIsMovedAsideRatherThanAppliedAgain() {
		run((outbox) -> {
			Instant at = Instant.now().plus(Duration.ofHours(1));
			outbox.transaction.executeWithoutResult((status) -> outbox.dispatcher.schedule("close-auction", 7L, at));
			// a relay applied it two hours ago and its delete never committed
			outbox.jdbc.update("UPDATE " + JdbcJobOutbox.TABLE + " SET sent_at = ?",
					System.currentTimeMillis() - Duration.ofHours(2).toMillis());
			outbox.relayAll();
			assertThat(outbox.dispatcher.findTimer("close-auction", 7L)).as("not applied again").isEmpty();
			assertThat(outbox.outbox.parkedRows(0, 10)).singleElement()
				.extracting(JdbcJobOutbox.ParkedRow::reason, InstanceOfAssertFactories.STRING)
				.contains("re-send window");
		});
	}

	@Test // issue 35, item 7
	void outboxOnAnotherDataSourceThanTheTransactionsIsRefused() {
		run((outbox) -> {
			EmbeddedDatabase other = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
				.generateUniqueName(true)
				.build();
			try {
				TransactionTemplate elsewhere = new TransactionTemplate(new DataSourceTransactionManager(other));
				assertThatIllegalStateException()
					.isThrownBy(() -> elsewhere
						.executeWithoutResult((status) -> outbox.dispatcher.dispatch("send-invoice", "order-1")))
					.withMessageContaining("not in the transaction");
				assertThat(outbox.rows()).as("nothing committed on its own").isZero();
			}
			finally {
				other.shutdown();
			}
		});
	}

	@Test // issue 35, item 7
	void relayGoesOnAfterAnError() {
		run((outbox) -> {
			AtomicBoolean fail = new AtomicBoolean();
			// an Error that no Spring template wraps: thrown by the relay's first query
			DataSource failingOnce = new DelegatingDataSource(outbox.context.getBean(DataSource.class)) {

				@Override
				public Connection getConnection() throws SQLException {
					Connection connection = super.getConnection();
					return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
							new Class<?>[] { Connection.class }, (proxy, method, args) -> {
								if (method.getName().equals("prepareStatement") && fail.getAndSet(false)) {
									throw new AssertionError("simulated");
								}
								try {
									return method.invoke(connection, args);
								}
								catch (InvocationTargetException ex) {
									throw ex.getCause();
								}
							});
				}

			};
			JdbcOutboxRelay relay = new JdbcOutboxRelay(
					new JdbcJobOutbox(outbox.context.getBean(RedisJobDispatcher.class), failingOnce),
					outbox.operations);
			relay.setPollInterval(Duration.ofMillis(10));
			fail.set(true);
			relay.start();
			try {
				String id = outbox.commit(JobRequest.of("send-invoice", "order-1").build());
				await().untilAsserted(() -> assertThat(outbox.ready("mail")).containsExactly(id));
				assertThat(fail).isFalse();
			}
			finally {
				relay.stop();
			}
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class BatchJobsConfiguration {

		@Bean
		BatchJobs batchJobs() {
			return new BatchJobs();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MeteredConfiguration {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		MicrometerJobMetrics jobMetrics(MeterRegistry meterRegistry) {
			return new MicrometerJobMetrics(meterRegistry);
		}

	}

	private static double dispatched(MeterRegistry meters, String queue, String job) {
		return meters.find("redq.jobs.dispatched")
			.tags("queue", queue, "job", job)
			.counters()
			.stream()
			.mapToDouble((counter) -> counter.count())
			.sum();
	}

	static class BatchJobs {

		final List<String> members = new CopyOnWriteArrayList<>();

		final List<String> done = new CopyOnWriteArrayList<>();

		@QueuedJob(name = "batch-member", queue = "members")
		void member(String order) {
			this.members.add(order);
		}

		@QueuedJob(name = "batch-audit", queue = "audits")
		void audit(String order) {
			this.members.add(order);
		}

		@QueuedJob(name = "batch-done", queue = "callbacks")
		void done(String outcome) {
			this.done.add(outcome);
		}

	}

	static class Unwritable {

		public String getValue() {
			throw new IllegalStateException("cannot be written");
		}

	}

	/**
	 * The beans of a test's context.
	 */
	static final class Outbox {

		final AssertableApplicationContext context;

		final JobDispatcher dispatcher;

		final JdbcJobOutbox outbox;

		final RedisJobQueueOperations operations;

		final EnqueueOperations enqueueOperations;

		final JdbcTemplate jdbc;

		final PlatformTransactionManager transactionManager;

		final TransactionTemplate transaction;

		final StringRedisTemplate redis;

		Outbox(AssertableApplicationContext context) {
			this.context = context;
			this.dispatcher = context.getBean(JobDispatcher.class);
			assertThat(this.dispatcher).isInstanceOf(TransactionAwareJobDispatcher.class);
			this.outbox = context.getBean(JdbcJobOutbox.class);
			this.operations = context.getBean(RedisJobQueueOperations.class);
			this.enqueueOperations = this.operations.getEnqueueOperations();
			this.jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			this.transactionManager = context.getBean(PlatformTransactionManager.class);
			this.transaction = new TransactionTemplate(this.transactionManager);
			this.redis = context.getBean(StringRedisTemplate.class);
		}

		JdbcOutboxRelay relay() {
			return new JdbcOutboxRelay(this.outbox, this.operations);
		}

		/**
		 * Relay until a pass finds no row to take.
		 */
		void relayAll() {
			JdbcOutboxRelay relay = relay();
			while (relay.relay() > 0) {
				// each pass takes the next rows
			}
		}

		String commit(JobRequest request) {
			return this.transaction.execute((status) -> this.dispatcher.dispatch(request).id());
		}

		long rows() {
			return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + JdbcJobOutbox.TABLE, Long.class);
		}

		OutboxStatus status() {
			return this.outbox.status();
		}

		/**
		 * The live entries of the ready list: a cancelled job's entry stays, counted
		 * stale, until reserved.
		 */
		List<String> ready(String queue) {
			Map<Object, Object> stale = new HashMap<>(this.redis.opsForHash().entries("redq:{" + queue + "}:stale"));
			List<String> live = new ArrayList<>();
			for (String id : this.redis.opsForList().range("redq:{" + queue + "}:ready", 0, -1)) {
				int skip = Integer.parseInt((String) stale.getOrDefault(id, "0"));
				if (skip > 0) {
					stale.put(id, Integer.toString(skip - 1));
				}
				else {
					live.add(id);
				}
			}
			return live;
		}

	}

}
