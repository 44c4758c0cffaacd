package io.redq.queue.transaction;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.Timer;
import io.redq.queue.redis.AbstractQueueIntegrationTests;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.test.ScriptExecutions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
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
 * Tests for {@link TransactionAwareJobDispatcher} on a real Redis and a real transaction
 * manager on an embedded H2 database.
 *
 * @author Redq team
 */
class TransactionAwareJobDispatcherIntegrationTests extends AbstractQueueIntegrationTests {

	private EmbeddedDatabase database;

	private JdbcTemplate jdbc;

	private DataSourceTransactionManager transactionManager;

	private TransactionTemplate transaction;

	private RedisJobDispatcher target;

	private TransactionAwareJobDispatcher dispatcher;

	@BeforeEach
	void setUp() {
		this.database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).generateUniqueName(true).build();
		this.jdbc = new JdbcTemplate(this.database);
		this.jdbc.execute("create table orders (id varchar(50) primary key)");
		this.transactionManager = new DataSourceTransactionManager(this.database);
		this.transaction = new TransactionTemplate(this.transactionManager);
		JobCatalog catalog = new JobCatalog();
		catalog.register(new JobDefinition("send-invoice", QUEUE, 3, Duration.ZERO, JobBackoff.DEFAULT, String.class));
		catalog.register(new JobDefinition("close-auction", QUEUE, 3, Duration.ZERO, JobBackoff.DEFAULT, Long.class));
		catalog.register(new JobDefinition("audit", "audit", 3, Duration.ZERO, JobBackoff.DEFAULT, null));
		this.target = new RedisJobDispatcher(this.operations, catalog, JsonMapper.shared());
		this.dispatcher = new TransactionAwareJobDispatcher(this.target);
	}

	@AfterEach
	void tearDown() {
		this.dispatcher.stop();
		this.target.stop();
		this.database.shutdown();
	}

	@Test
	void dispatchesOutsideATransactionShareCallsAsTheTargetsOwnDo() throws Exception {
		// one call in flight, so that the four arriving while the first is held share one
		// call
		this.target.setCoalescingMaxInFlight(1);
		this.dispatcher.dispatch("send-invoice", "warm");
		long before = ScriptExecutions.count(this.redis);
		this.redis.command("CLIENT", "PAUSE", "30000", "WRITE");
		List<FutureTask<DispatchResult>> callers = new ArrayList<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			String payload = "order-" + i;
			FutureTask<DispatchResult> caller = new FutureTask<>(
					() -> this.dispatcher.dispatch("send-invoice", payload));
			Thread thread = new Thread(caller);
			thread.setDaemon(true);
			thread.start();
			callers.add(caller);
			threads.add(thread);
			if (i == 0) {
				// the first call held in Redis while the others arrive
				await().atMost(Duration.ofSeconds(30))
					.until(() -> this.redis.command("INFO", "clients").contains("blocked_clients:1"));
			}
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> threads.stream().allMatch((thread) -> thread.getState() == Thread.State.TIMED_WAITING));
		this.redis.command("CLIENT", "UNPAUSE");
		for (FutureTask<DispatchResult> caller : callers) {
			assertThat(caller.get(30, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.CREATED);
		}
		assertThat(ScriptExecutions.count(this.redis) - before).as("the first call, then one for the other four")
			.isEqualTo(2);
		assertThat(this.operations.stats(QUEUE).ready()).isEqualTo(6);
	}

	@Test
	void commitSendsTheJobsOnlyAfterTheCommit() {
		List<String> readyInside = new ArrayList<>();
		DispatchResult result = this.transaction.execute((status) -> {
			this.jdbc.update("insert into orders values ('order-1')");
			DispatchResult deferred = this.dispatcher.dispatch("send-invoice", "order-1");
			readyInside.addAll(ready());
			return deferred;
		});
		assertThat(result.outcome()).isEqualTo(Outcome.DEFERRED);
		assertThat(result.id()).as("a generated id, known at once").hasSize(22);
		assertThat(readyInside).as("nothing in Redis before the commit").isEmpty();
		await().untilAsserted(() -> assertThat(ready()).containsExactly(result.id()));
		assertThat(this.jdbc.queryForList("select id from orders", String.class)).containsExactly("order-1");
	}

	@Test
	void aJobSentAfterTheCommitKeepsItsPriorityAndGroup() {
		DispatchResult result = this.transaction.execute((status) -> this.dispatcher
			.dispatch(JobRequest.of("send-invoice", "order-1").priority(8).group("acme").build()));
		assertThat(result.outcome()).isEqualTo(Outcome.DEFERRED);
		await().untilAsserted(
				() -> assertThat(this.template.opsForHash().get(this.keys.levels(), result.id())).isEqualTo("8 acme"));
	}

	@Test
	void rollbackDropsTheJobs() {
		AtomicReference<CompletableFuture<DispatchResult>> future = new AtomicReference<>();
		this.transaction.executeWithoutResult((status) -> {
			this.jdbc.update("insert into orders values ('order-1')");
			this.dispatcher.dispatch("send-invoice", "order-1");
			this.dispatcher.dispatchAll(List.of(JobRequest.of("audit", "a").build()));
			future.set(this.dispatcher.dispatchAsync("send-invoice", "order-1"));
			status.setRollbackOnly();
		});
		awaitSent();
		assertThat(ready()).isEmpty();
		assertThat(this.operations.stats("audit").ready()).isOne();
		assertThat(future.get()).isCancelled();
		assertThat(this.jdbc.queryForList("select id from orders", String.class)).isEmpty();
	}

	@Test
	void exceptionThatRollsBackDropsTheJobs() {
		assertThatIllegalStateException().isThrownBy(() -> this.transaction.executeWithoutResult((status) -> {
			this.dispatcher.dispatch("send-invoice", "order-1");
			throw new IllegalStateException("failed");
		}));
		assertThat(ready()).isEmpty();
	}

	@Test
	void nestedTransactionRolledBackToItsSavepointDropsOnlyItsJobs() {
		TransactionTemplate nested = new TransactionTemplate(this.transactionManager);
		nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
		List<String> ids = new ArrayList<>();
		List<String> dropped = new ArrayList<>();
		this.transaction.executeWithoutResult((status) -> {
			ids.add(this.dispatcher.dispatch("send-invoice", "before").id());
			nested.executeWithoutResult((inner) -> {
				dropped.add(this.dispatcher.dispatch("send-invoice", "rolled-back").id());
				nested.executeWithoutResult((innermost) -> dropped
					.add(this.dispatcher.dispatch("send-invoice", "inside-rolled-back").id()));
				inner.setRollbackOnly();
			});
			nested.executeWithoutResult((inner) -> ids.add(this.dispatcher.dispatch("send-invoice", "kept").id()));
			ids.add(this.dispatcher.dispatch("send-invoice", "after").id());
		});
		await().untilAsserted(() -> assertThat(ready()).hasSize(ids.size()));
		assertThat(ready()).containsExactlyElementsOf(ids).doesNotContainAnyElementsOf(dropped);
	}

	@Test // issue 37
	void chainRolledBackToItsSavepointIsNeverSentAndTheOtherIsSentAfterTheCommit() {
		TransactionTemplate nested = new TransactionTemplate(this.transactionManager);
		nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
		AtomicReference<ChainResult> dropped = new AtomicReference<>();
		ChainResult kept = this.transaction.execute((status) -> {
			nested.executeWithoutResult((inner) -> {
				dropped.set(this.dispatcher.dispatchChain(
						ChainRequest.of(JobRequest.of("send-invoice", "rolled-back").build(), audit("rolled-back"))
							.build()));
				inner.setRollbackOnly();
			});
			ChainResult chain = this.dispatcher
				.dispatchChain(ChainRequest.of(JobRequest.of("send-invoice", "kept").build(), audit("kept")).build());
			assertThat(this.target.findChain(chain.chainId())).as("not before the commit").isEmpty();
			return chain;
		});
		await().untilAsserted(() -> assertThat(this.target.findChain(kept.chainId())).get()
			.extracting(ChainStatus::state)
			.isEqualTo(ChainStatus.State.RUNNING));
		assertThat(ready()).containsExactly(kept.stepIds().get(0));
		assertThat(this.target.findChain(dropped.get().chainId())).isEmpty();
	}

	@Test // issue 37, nesting
	void aWorkflowNestedFourLevelsIsSentWholeAfterTheCommitOrNotAtAll() {
		// a batch holding a chain whose first step is a batch holding a chain
		BatchRequest nesting = BatchRequest.builder()
			.member(audit("a"))
			.chain(ChainRequest.builder()
				.step(BatchRequest.builder()
					.chain(ChainRequest.of(JobRequest.of("send-invoice", "c").build(), audit("c")).build())
					.build())
				.step(audit("d"))
				.build())
			.build();
		BatchResult rolledBack = this.transaction.execute((status) -> {
			status.setRollbackOnly();
			return this.dispatcher.dispatchBatch(nesting);
		});
		BatchResult batch = this.transaction.execute((status) -> {
			BatchResult result = this.dispatcher.dispatchBatch(nesting);
			assertThat(this.target.findBatch(result.batchId())).as("not before the commit").isEmpty();
			return result;
		});
		String chainId = batch.members().get(1).id();
		await().untilAsserted(() -> assertThat(this.target.findBatch(batch.batchId())).get()
			.extracting(BatchStatus::state)
			.isEqualTo(BatchStatus.State.RUNNING));
		assertThat(this.target.findChain(chainId)).get()
			.extracting(ChainStatus::state)
			.isEqualTo(ChainStatus.State.RUNNING);
		assertThat(this.target.findBatch(chainId + ":1")).get()
			.extracting(BatchStatus::state, BatchStatus::total)
			.as("the chain's first step, holding the innermost chain")
			.containsExactly(BatchStatus.State.RUNNING, 1L);
		assertThat(ready()).as("the innermost chain's first step").hasSize(1);
		assertThat(this.target.findBatch(rolledBack.batchId())).isEmpty();
		assertThat(this.target.findChain(rolledBack.members().get(1).id())).isEmpty();
	}

	@Test
	void requiresNewTransactionSendsItsJobsWhenItCommits() {
		TransactionTemplate requiresNew = new TransactionTemplate(this.transactionManager);
		requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		List<String> readyAfterInner = new ArrayList<>();
		AtomicReference<String> inner = new AtomicReference<>();
		this.transaction.executeWithoutResult((status) -> {
			this.dispatcher.dispatch("send-invoice", "outer");
			requiresNew.executeWithoutResult((innerStatus) -> {
				inner.set(this.dispatcher.dispatch("send-invoice", "inner").id());
				this.dispatcher.dispatch("send-invoice", "inner-rolled-back");
				requiresNew.executeWithoutResult((innermost) -> {
					this.dispatcher.dispatch("send-invoice", "innermost-rolled-back");
					innermost.setRollbackOnly();
				});
			});
			await().untilAsserted(() -> assertThat(ready()).hasSize(2));
			readyAfterInner.addAll(ready());
			this.dispatcher.dispatch("send-invoice", "outer-later");
			status.setRollbackOnly();
		});
		assertThat(readyAfterInner).as("the inner transaction's jobs, sent at its commit")
			.hasSize(2)
			.contains(inner.get());
		assertThat(ready()).as("the outer transaction rolled back").isEqualTo(readyAfterInner);
	}

	@Test
	void tenThousandJobsOfOneTransactionAreSentInOneCallPerThousandJobs() {
		List<String> ids = new ArrayList<>();
		long before = ScriptExecutions.count(this.redis);
		this.transaction.executeWithoutResult((status) -> {
			for (int i = 0; i < 10_000; i++) {
				ids.add(this.dispatcher.dispatch("send-invoice", "order-" + i).id());
			}
			this.dispatcher.dispatch("audit", "done");
		});
		// read without a script, which would count
		await().until(() -> this.template.opsForList().size(this.operations.getStore().keys("audit").ready()) == 1);
		assertThat(ScriptExecutions.count(this.redis) - before).as("10 calls for the queue, 1 for 'audit'")
			.isEqualTo(11);
		assertThat(ids).doesNotHaveDuplicates();
		assertThat(ready()).containsExactlyElementsOf(ids);
		assertThat(this.operations.stats("audit").ready()).isOne();
	}

	@Test
	void dispatchAsyncCompletesWithTheOutcomeAfterTheCommit() {
		this.target.dispatch(JobRequest.of("send-invoice", "first").id("invoice-1").build());
		AtomicReference<CompletableFuture<DispatchResult>> kept = new AtomicReference<>();
		AtomicReference<CompletableFuture<DispatchResult>> created = new AtomicReference<>();
		this.transaction.executeWithoutResult((status) -> {
			kept.set(this.dispatcher.dispatchAsync(JobRequest.of("send-invoice", "again").id("invoice-1").build()));
			created.set(this.dispatcher.dispatchAsync(JobRequest.of("send-invoice", "new").id("invoice-2").build()));
			assertThat(kept.get()).isNotDone();
		});
		assertThat(kept.get()).succeedsWithin(Duration.ofSeconds(30));
		assertThat(created.get()).succeedsWithin(Duration.ofSeconds(30));
		assertThat(kept.get()).isCompletedWithValue(new DispatchResult("invoice-1", Outcome.KEPT));
		assertThat(created.get()).isCompletedWithValue(new DispatchResult("invoice-2", Outcome.CREATED));
		assertThat(ready()).containsExactly("invoice-1", "invoice-2");
	}

	@Test
	void timersSetMovedAndCancelledInOneTransactionEndAsWritten() {
		Instant first = Instant.now().plus(Duration.ofHours(1));
		Instant moved = first.plus(Duration.ofHours(1));
		this.transaction.executeWithoutResult((status) -> {
			assertThat(this.dispatcher.schedule("close-auction", 42L, first))
				.isEqualTo(new DispatchResult("close-auction:42", Outcome.DEFERRED));
			assertThat(this.dispatcher.reschedule("close-auction", 42L, moved)).as("not known before the commit")
				.isFalse();
			this.dispatcher.schedule("close-auction", 43L, first);
			this.dispatcher.cancelTimer("close-auction", 43L);
		});
		awaitSent();
		assertThat(this.dispatcher.findTimer("close-auction", 42L)).map(Timer::dueAt)
			.contains(Instant.ofEpochMilli(moved.toEpochMilli()));
		assertThat(this.dispatcher.findTimer("close-auction", 43L)).isEmpty();
	}

	@Test
	void timerCallsOfATransactionThatRollsBackChangeNothing() {
		Instant at = Instant.now().plus(Duration.ofHours(1));
		this.target.schedule("close-auction", 42L, at);
		String pending = this.target.dispatch("send-invoice", "order-1").id();
		this.transaction.executeWithoutResult((status) -> {
			this.dispatcher.reschedule("close-auction", 42L, at.plus(Duration.ofHours(1)));
			this.dispatcher.cancel(QUEUE, pending);
			status.setRollbackOnly();
		});
		awaitSent();
		assertThat(this.dispatcher.findTimer("close-auction", 42L)).map(Timer::dueAt)
			.contains(Instant.ofEpochMilli(at.toEpochMilli()));
		assertThat(ready()).containsExactly(pending);
	}

	@Test
	void badInputFailsTheCallerInsideTheTransaction() {
		assertThatIllegalArgumentException().isThrownBy(
				() -> this.transaction.executeWithoutResult((status) -> this.dispatcher.dispatch("no-such-job", "x")))
			.withMessageContaining("No job named 'no-such-job'");
		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> this.transaction
				.executeWithoutResult((status) -> this.dispatcher.dispatch("audit", new Unwritable())))
			.withStackTraceContaining("cannot be written");
		this.target.setMaxPayloadSize(100);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.transaction
				.executeWithoutResult((status) -> this.dispatcher.dispatch("send-invoice", "x".repeat(100))))
			.withMessageContaining("more than the limit");
		assertThat(ready()).isEmpty();
	}

	@Test
	void requestOutsideTransactionIsSentAtOnceAndKeptOnRollback() {
		List<String> readyInside = new ArrayList<>();
		List<DispatchResult> results = new ArrayList<>();
		this.transaction.executeWithoutResult((status) -> {
			results.addAll(this.dispatcher.dispatchAll(List.of(JobRequest.of("send-invoice", "held").build(),
					JobRequest.of("send-invoice", "now").outsideTransaction().build())));
			readyInside.addAll(ready());
			status.setRollbackOnly();
		});
		assertThat(results).extracting(DispatchResult::outcome).containsExactly(Outcome.DEFERRED, Outcome.CREATED);
		assertThat(readyInside).containsExactly(results.get(1).id());
		assertThat(ready()).containsExactly(results.get(1).id());
	}

	@Test
	void targetDispatcherIgnoresTheTransaction() {
		this.transaction.executeWithoutResult((status) -> {
			this.dispatcher.getTargetDispatcher().dispatch("send-invoice", "now");
			status.setRollbackOnly();
		});
		assertThat(ready()).hasSize(1);
	}

	@Test
	void dispatchOutsideATransactionIsSentAtOnce() {
		DispatchResult result = this.dispatcher.dispatch("send-invoice", "order-1");
		assertThat(result.outcome()).isEqualTo(Outcome.CREATED);
		assertThat(ready()).containsExactly(result.id());
	}

	@Test // issue 35, item 2
	void timerCallsInLaterTransactionsApplyAfterTheEarlierOnes() {
		Instant first = Instant.now().plus(Duration.ofHours(1));
		Instant moved = first.plus(Duration.ofHours(1));
		for (long key = 0; key < 20; key++) {
			long auction = key;
			this.transaction
				.executeWithoutResult((status) -> this.dispatcher.schedule("close-auction", auction, first));
			this.transaction.executeWithoutResult((status) -> {
				if (auction % 2 == 0) {
					this.dispatcher.cancelTimer("close-auction", auction);
				}
				else {
					this.dispatcher.reschedule("close-auction", auction, moved);
				}
			});
		}
		awaitSent();
		for (long key = 0; key < 20; key++) {
			if (key % 2 == 0) {
				assertThat(this.dispatcher.findTimer("close-auction", key)).as("timer %d", key).isEmpty();
			}
			else {
				assertThat(this.dispatcher.findTimer("close-auction", key)).as("timer %d", key)
					.map(Timer::dueAt)
					.contains(Instant.ofEpochMilli(moved.toEpochMilli()));
			}
		}
	}

	@Test // issue 35, item 1
	void dispatchesFromTheCommitsCallbacksAreSent() {
		List<String> ids = new ArrayList<>();
		this.transaction.executeWithoutResult((status) -> {
			ids.add(this.dispatcher.dispatch("send-invoice", "inside").id());
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void beforeCommit(boolean readOnly) {
					ids.add(TransactionAwareJobDispatcherIntegrationTests.this.dispatcher
						.dispatch("send-invoice", "before-commit")
						.id());
				}

				@Override
				public void afterCommit() {
					ids.add(TransactionAwareJobDispatcherIntegrationTests.this.dispatcher
						.dispatch("send-invoice", "after-commit")
						.id());
				}

			});
		});
		await().untilAsserted(() -> assertThat(ready()).containsExactlyElementsOf(ids));
	}

	@Test // issue 35, item 5
	void commitReturnsWithoutWaitingForRedis() {
		AtomicReference<CompletableFuture<DispatchResult>> future = new AtomicReference<>();
		// Redis holds every command of every client for 3 seconds
		this.template.execute((RedisCallback<Object>) (connection) -> connection.execute("CLIENT",
				"PAUSE".getBytes(StandardCharsets.UTF_8), "3000".getBytes(StandardCharsets.UTF_8),
				"ALL".getBytes(StandardCharsets.UTF_8)));
		this.transaction.executeWithoutResult((status) -> {
			this.jdbc.update("insert into orders values ('order-1')");
			future.set(this.dispatcher.dispatchAsync("send-invoice", "order-1"));
		});
		assertThat(future.get()).as("the commit returned before Redis took the job").isNotDone();
		assertThat(future.get()).succeedsWithin(Duration.ofSeconds(30))
			.extracting(DispatchResult::outcome)
			.isEqualTo(Outcome.CREATED);
	}

	@Test // issue 35, item 7
	@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
	void waitingForAnAsyncDispatchInsideItsTransactionThrowsInsteadOfHanging() {
		AtomicReference<CompletableFuture<DispatchResult>> future = new AtomicReference<>();
		this.transaction.executeWithoutResult((status) -> {
			future.set(this.dispatcher.dispatchAsync("send-invoice", "order-1"));
			assertThatIllegalStateException().isThrownBy(() -> future.get().join())
				.withMessageContaining("inside the transaction would wait forever");
			assertThatIllegalStateException().isThrownBy(() -> future.get().get(1, TimeUnit.SECONDS));
		});
		assertThat(future.get().join().outcome()).isEqualTo(Outcome.CREATED);
	}

	@Test // issue 35, item 5
	void transactionsCommittedByManyThreadsAreAllSent() {
		int threads = 8;
		int transactions = 100;
		List<CompletableFuture<Void>> callers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			callers.add(CompletableFuture.runAsync(() -> {
				for (int i = 0; i < transactions; i++) {
					this.transaction.executeWithoutResult((status) -> {
						for (int j = 0; j < 10; j++) {
							this.dispatcher.dispatch("send-invoice", "order");
						}
					});
				}
			}));
		}
		CompletableFuture.allOf(callers.toArray(CompletableFuture[]::new)).join();
		await().untilAsserted(() -> assertThat(this.template.opsForList().size(this.keys.ready()))
			.isEqualTo(threads * transactions * 10L));
	}

	/**
	 * Wait until the steps of the transactions committed so far are sent: those of a
	 * transaction committed after them are sent after them.
	 */
	private void awaitSent() {
		String marker = this.transaction
			.execute((status) -> this.dispatcher.dispatch(JobRequest.of("audit", "marker").build()).id());
		await().until(() -> this.operations.status("audit", marker).state() != JobStatus.State.NONE);
	}

	static class Unwritable {

		public String getValue() {
			throw new IllegalStateException("cannot be written");
		}

	}

	private List<String> ready() {
		return this.template.opsForList().range(this.keys.ready(), 0, -1);
	}

	private static JobRequest audit(String payload) {
		return JobRequest.of("audit", payload).build();
	}

}
