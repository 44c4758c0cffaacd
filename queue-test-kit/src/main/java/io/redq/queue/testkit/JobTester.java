package io.redq.queue.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;

import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobIds;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
import io.redq.queue.core.Timer;
import io.redq.queue.listener.JobContext;
import io.redq.queue.listener.JobHandler;
import io.redq.queue.outbox.JdbcJobOutbox;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Makes tests of an application's jobs short and deterministic, on the application's own
 * Redis and beans: wait until queues are drained or one job has completed, run one job's
 * handler on the calling thread, and make a delayed job or a timer due now instead of
 * waiting for it. <pre class="code">
 * JobTester jobs = JobTester.of(context);
 * dispatcher.dispatch("send-invoice", invoice);
 * jobs.awaitDrained(Duration.ofSeconds(10));
 * </pre> With {@code queue-outbox}, the waits, {@link #makeDue(String, String)} and
 * {@link #makeTimerDue(String, Object)} also wait until the relay has sent the rows of
 * the transactions that committed before: their jobs and timer calls are not in Redis
 * yet.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class JobTester {

	private static final boolean OUTBOX_PRESENT = ClassUtils.isPresent("io.redq.queue.outbox.JdbcJobOutbox",
			JobTester.class.getClassLoader());

	/**
	 * How long {@link #makeDue} and {@link #makeTimerDue} wait for the outbox's relay.
	 */
	private static final Duration RELAY_DEADLINE = Duration.ofSeconds(10);

	private final JobQueueOperations operations;

	private final JobListenerRegistry registry;

	private final JobDispatcher dispatcher;

	private final JsonMapper jsonMapper;

	/**
	 * The rows that the outbox holds for the relay to send, 0 without an outbox: rows,
	 * not jobs, since a row that only moves or cancels a timer holds no job.
	 */
	private final LongSupplier outboxRows;

	private JobTester(JobQueueOperations operations, JobListenerRegistry registry, JobDispatcher dispatcher,
			JsonMapper jsonMapper, LongSupplier outboxRows) {
		this.operations = operations;
		this.registry = registry;
		this.dispatcher = dispatcher;
		this.jsonMapper = jsonMapper;
		this.outboxRows = outboxRows;
	}

	/**
	 * Create a tester on the beans of an application context.
	 * @param beanFactory the application's context
	 * @return the tester
	 */
	public static JobTester of(BeanFactory beanFactory) {
		return new JobTester(beanFactory.getBean(JobQueueOperations.class),
				beanFactory.getBean(JobListenerRegistry.class), beanFactory.getBean(JobDispatcher.class),
				beanFactory.getBeanProvider(JsonMapper.class).getIfAvailable(JsonMapper::shared),
				OUTBOX_PRESENT ? Outbox.waitingRows(beanFactory) : () -> 0);
	}

	/**
	 * Wait until every queue of a job this application knows has no ready, delayed or
	 * running job.
	 * @param deadline the longest wait
	 * @throws AssertionError when a queue still has pending jobs at the deadline, with
	 * their counts
	 */
	public void awaitDrained(Duration deadline) {
		Set<String> queues = new TreeSet<>();
		this.registry.getJobCatalog().all().forEach((definition) -> queues.add(definition.queue()));
		awaitDrained(queues, deadline);
	}

	/**
	 * Wait until a queue has no ready, delayed or running job.
	 * @param queue the queue
	 * @param deadline the longest wait
	 * @throws AssertionError when the queue still has pending jobs at the deadline, with
	 * their counts
	 */
	public void awaitDrained(String queue, Duration deadline) {
		awaitDrained(Set.of(queue), deadline);
	}

	private void awaitDrained(Collection<String> queues, Duration deadline) {
		long end = System.nanoTime() + deadline.toNanos();
		while (true) {
			// the outbox first: once it is empty, the jobs it held are in the queues
			long inOutbox = this.outboxRows.getAsLong();
			Map<String, QueueStats> pending = new LinkedHashMap<>();
			for (String queue : queues) {
				QueueStats stats = this.operations.stats(queue);
				if (stats.pending() > 0) {
					pending.put(queue, stats);
				}
			}
			if (inOutbox == 0 && pending.isEmpty()) {
				return;
			}
			if (System.nanoTime() - end > 0) {
				throw new AssertionError("Queues not drained within " + deadline + ": " + pending
						+ ((inOutbox > 0) ? ", and the outbox holds " + inOutbox + " rows for its relay to send" : ""));
			}
			pause("queues to drain");
		}
	}

	private static void pause(String waitingFor) {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for " + waitingFor, ex);
		}
	}

	/**
	 * Wait until one job dispatched before the call has completed, whatever else its
	 * queue holds: for a flow that also sets a long timer, which
	 * {@link #awaitDrained(Duration)} would wait for. A job no longer in its queue counts
	 * as completed, since a completed job leaves nothing behind unless
	 * {@code redq.completed.max-size} keeps its id; so does one that was cancelled. Wait
	 * for the future of {@code dispatchAsync} before, so that the job is in Redis; a job
	 * not in its queue while the outbox holds rows is waited for. <pre class="code">
	 * String id = dispatcher.dispatch("send-invoice", invoice).id();
	 * jobs.awaitCompleted("mail", id, Duration.ofSeconds(10));
	 * </pre>
	 * @param queue the job's queue
	 * @param id the job's id
	 * @param deadline the longest wait
	 * @throws AssertionError when the job died, or is still pending at the deadline, with
	 * its state
	 */
	public void awaitCompleted(String queue, String id, Duration deadline) {
		long end = System.nanoTime() + deadline.toNanos();
		while (true) {
			// a job that the outbox holds is in no queue yet: not one that completed
			long inOutbox = this.outboxRows.getAsLong();
			JobStatus status = this.operations.status(queue, id);
			if (status.state() == JobStatus.State.COMPLETED
					|| (status.state() == JobStatus.State.NONE && inOutbox == 0)) {
				return;
			}
			if (status.state() == JobStatus.State.DEAD) {
				throw new AssertionError("Job '" + id + "' of queue '" + queue + "' died at " + status.at()
						+ " instead of completing: its last error is in the queue's dead jobs");
			}
			if (System.nanoTime() - end > 0) {
				throw new AssertionError("Job '" + id + "' of queue '" + queue + "' not completed within " + deadline
						+ ": " + status.state());
			}
			pause("a job to complete");
		}
	}

	/**
	 * Run a job's handler once on the calling thread, as its first attempt would, without
	 * Redis: the payload goes through JSON as a dispatch would take it.
	 * @param jobName the job's name
	 * @param payload the payload
	 * @return the context the handler got
	 * @throws Exception what the handler threw
	 */
	public JobContext run(String jobName, @Nullable Object payload) throws Exception {
		JobHandler handler = handler(jobName);
		JobDefinition definition = handler.getDefinition();
		TestJobContext context = new TestJobContext(JobIds.next(), jobName, definition.queue(), 1,
				definition.maxAttempts(), Instant.now(), Instant.now(), Map.of());
		run(jobName, payload, context);
		return context;
	}

	/**
	 * Run a job's handler once on the calling thread with a context of the test's own,
	 * e.g. a {@link TestJobContext} of the last attempt.
	 * @param jobName the job's name
	 * @param payload the payload
	 * @param context the context the handler gets
	 * @throws Exception what the handler threw
	 */
	public void run(String jobName, @Nullable Object payload, JobContext context) throws Exception {
		JobHandler handler = handler(jobName);
		handler.handle(handler.readPayload((payload != null) ? this.jsonMapper.valueToTree(payload) : null), context);
	}

	/**
	 * Make a delayed job ready now, keeping its id and payload. With
	 * {@code queue-outbox}, first wait up to 10 seconds until the relay has sent the rows
	 * of the transactions that committed before, so that a job they dispatched is in
	 * Redis.
	 * @param queue the job's queue
	 * @param id the job's id
	 * @throws AssertionError when the queue has no such delayed job, or the outbox still
	 * holds rows after 10 seconds
	 */
	public void makeDue(String queue, String id) {
		awaitRelayed();
		if (!this.operations.trigger(queue, id)) {
			throw new AssertionError("No delayed job '" + id + "' in queue '" + queue + "'");
		}
	}

	/**
	 * Make a timer ready now, as if its time had come. With {@code queue-outbox}, first
	 * wait up to 10 seconds until the relay has sent the rows of the transactions that
	 * committed before, so that the timer is as they set, moved or cancelled it.
	 * @param jobName the timer's job
	 * @param key the timer's key
	 * @throws AssertionError when there is no such timer, or the outbox still holds rows
	 * after 10 seconds
	 */
	public void makeTimerDue(String jobName, Object key) {
		awaitRelayed();
		Timer timer = this.dispatcher.findTimer(jobName, key)
			.orElseThrow(() -> new AssertionError("No timer of job '" + jobName + "' with key " + key));
		makeDue(this.registry.getJobCatalog().find(jobName).queue(), timer.id());
	}

	/**
	 * Wait until the outbox holds no row: the jobs and timer calls of the transactions
	 * that committed before are then in Redis.
	 */
	private void awaitRelayed() {
		long end = System.nanoTime() + RELAY_DEADLINE.toNanos();
		long rows;
		while ((rows = this.outboxRows.getAsLong()) > 0) {
			if (System.nanoTime() - end > 0) {
				throw new AssertionError("The outbox still holds " + rows + " rows for its relay to send after "
						+ RELAY_DEADLINE + ": is its relay running?");
			}
			pause("the outbox's relay");
		}
	}

	private JobHandler handler(String jobName) {
		JobHandler handler = this.registry.getHandler(jobName);
		if (handler == null) {
			throw new IllegalArgumentException(
					"This application has no handler of job '" + jobName + "': is its @QueuedJob bean in the context?");
		}
		return handler;
	}

	/**
	 * The outbox's side, in a class of its own so that {@code queue-outbox} is loaded
	 * only when it is on the class path.
	 */
	private static final class Outbox {

		static LongSupplier waitingRows(BeanFactory beanFactory) {
			JdbcJobOutbox outbox = beanFactory.getBeanProvider(JdbcJobOutbox.class).getIfAvailable();
			return (outbox != null) ? () -> outbox.status().rows() : () -> 0;
		}

	}

}
