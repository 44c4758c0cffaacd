package io.redq.queue.outbox;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.outbox.autoconfigure.JobOutboxAutoConfiguration;
import io.redq.queue.outbox.autoconfigure.OutboxHealthIndicator;
import io.redq.queue.redis.EnqueueOperations;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import io.redq.queue.transaction.TransactionAwareJobDispatcher;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
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
					"redq.outbox.relay.enabled=false", "redq.recurring.enabled=false");
	}

	private void run(Consumer<Outbox> test, String... properties) {
		runner().withPropertyValues(properties).run((context) -> {
			assertThat(context).hasNotFailed();
			Outbox outbox = new Outbox(context);
			outbox.jdbc.update("DELETE FROM " + JdbcJobOutbox.TABLE);
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
			// a relay sends the row and dies before deleting it
			String nonce = outbox.jdbc.queryForObject("SELECT nonce FROM " + JdbcJobOutbox.TABLE, String.class);
			String jobs = outbox.jdbc.queryForObject("SELECT jobs FROM " + JdbcJobOutbox.TABLE, String.class);
			outbox.enqueueOperations.enqueueOnce("mail", nonce, outbox.outbox.commands(jobs),
					JdbcOutboxRelay.DEFAULT_RESEND_WINDOW);
			// the job runs and completes: gone from Redis
			assertThat(outbox.operations.cancel("mail", "invoice-2")).isTrue();
			assertThat(outbox.relay().relay()).isOne();
			assertThat(outbox.ready("mail")).as("not created again").containsExactly(id);
			assertThat(outbox.rows()).isZero();
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
			assertThat(outbox.ready("mail")).containsExactly(id);
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
			await().untilAsserted(() -> assertThat(health.health(true).getStatus()).isEqualTo(Status.DOWN));
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
			assertThat(context.getBean(StringRedisTemplate.class).opsForList().range("redq:{mail}:ready", 0, -1))
				.containsExactly(id);
		});
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
			this.jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
			this.transactionManager = context.getBean(PlatformTransactionManager.class);
			this.transaction = new TransactionTemplate(this.transactionManager);
			this.redis = context.getBean(StringRedisTemplate.class);
		}

		JdbcOutboxRelay relay() {
			return new JdbcOutboxRelay(this.outbox, this.enqueueOperations,
					this.context.getBean(javax.sql.DataSource.class));
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
