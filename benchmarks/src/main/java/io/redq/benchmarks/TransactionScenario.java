package io.redq.benchmarks;

import java.util.concurrent.TimeUnit;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.outbox.JdbcJobOutbox;
import io.redq.queue.transaction.TransactionAwareJobDispatcher;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code transactions}: dispatch inside transactions of an embedded H2 database, from
 * {@code --threads} threads, {@value #JOBS_PER_TRANSACTION} single dispatches per
 * transaction: the same dispatches without a transaction ({@code plain}, the reference),
 * after the commit ({@code afterCommit}), then through the outbox ({@code outbox}: from
 * the first transaction until the relay has moved the last job to Redis;
 * {@code outboxCommit}: until the last transaction committed its rows).
 *
 * @author Redq team
 * @since 0.1.0
 */
class TransactionScenario implements Scenario {

	/** The jobs each transaction dispatches. */
	static final int JOBS_PER_TRANSACTION = 10;

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(100_000);
		int warmup = harness.options().warmup(jobs);
		result.put("jobs", jobs);
		result.put("threads", harness.options().threads());
		result.put("jobsPerTransaction", JOBS_PER_TRANSACTION);
		try (ConfigurableApplicationContext context = start(harness, false)) {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			TransactionTemplate transaction = transaction(context);
			harness.warmUp(result, () -> {
				dispatch(harness, dispatcher, null, warmup);
				dispatch(harness, dispatcher, transaction, warmup);
				awaitInRedis(harness, 2 * warmup);
				harness.clearQueue();
			});
			Phase plain = Phase.start(harness, result, jobs + " dispatches without a transaction");
			dispatch(harness, dispatcher, null, jobs);
			plain.end(result, "plain", jobs);
			harness.clearQueue();
			Phase afterCommit = Phase.start(harness, result, jobs + " dispatches sent after their commit");
			dispatch(harness, dispatcher, transaction, jobs);
			// sent by the dispatcher's thread after each commit: done once all are in
			// Redis
			awaitInRedis(harness, jobs);
			afterCommit.end(result, "afterCommit", jobs);
			harness.clearQueue();
		}
		try (ConfigurableApplicationContext context = start(harness, true)) {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			TransactionTemplate transaction = transaction(context);
			harness.warmUp(result, () -> {
				dispatch(harness, dispatcher, transaction, warmup);
				awaitRelayed(harness, context, warmup);
				harness.clearQueue();
			});
			Phase outbox = Phase.start(harness, result, jobs + " dispatches through the outbox");
			dispatch(harness, dispatcher, transaction, jobs);
			result.put("outboxCommitJobsPerSecond", jobs / ((System.nanoTime() - outbox.startNanos()) / 1e9));
			awaitRelayed(harness, context, jobs);
			outbox.end(result, "outbox", jobs);
			harness.clearQueue();
		}
	}

	private static ConfigurableApplicationContext start(Harness harness, boolean outbox) {
		ConfigurableApplicationContext context = harness.start(BenchmarkConfiguration.NoopJobs.class,
				"redq.listener.auto-startup=false", "redq.outbox.enabled=" + outbox,
				"spring.datasource.generate-unique-name=true");
		if (!(context.getBean(JobDispatcher.class) instanceof TransactionAwareJobDispatcher)) {
			throw new IllegalStateException("The dispatcher does not follow transactions");
		}
		return context;
	}

	private static TransactionTemplate transaction(ConfigurableApplicationContext context) {
		return new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
	}

	/**
	 * Dispatch jobs from {@code --threads} threads, {@value #JOBS_PER_TRANSACTION} per
	 * transaction, or without one when {@code transaction} is {@code null}.
	 */
	private static void dispatch(Harness harness, JobDispatcher dispatcher, @Nullable TransactionTemplate transaction,
			int jobs) throws Exception {
		int threads = harness.options().threads();
		int units = (jobs + JOBS_PER_TRANSACTION - 1) / JOBS_PER_TRANSACTION;
		Harness.parallel(threads, (thread) -> {
			for (int unit = thread; unit < units; unit += threads) {
				int first = unit * JOBS_PER_TRANSACTION;
				int last = Math.min(jobs, first + JOBS_PER_TRANSACTION);
				Runnable dispatches = () -> {
					for (int i = first; i < last; i++) {
						dispatcher.dispatch(BenchmarkConfiguration.JOB, Integer.toString(i));
					}
				};
				if (transaction != null) {
					transaction.executeWithoutResult((status) -> dispatches.run());
				}
				else {
					dispatches.run();
				}
			}
		});
	}

	private static void awaitInRedis(Harness harness, int jobs) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
		while (harness.redis().hlen(Harness.queueKeys().jobs()) < jobs && System.nanoTime() < deadline) {
			Thread.sleep(1);
		}
	}

	private static void awaitRelayed(Harness harness, ConfigurableApplicationContext context, int jobs)
			throws InterruptedException {
		JdbcJobOutbox outbox = context.getBean(JdbcJobOutbox.class);
		while (outbox.status().rows() > 0) {
			Thread.sleep(1);
		}
		if (harness.redis().hlen(Harness.queueKeys().jobs()) != jobs) {
			throw new IllegalStateException(
					"The relay moved " + harness.redis().hlen(Harness.queueKeys().jobs()) + " of " + jobs + " jobs");
		}
	}

}
