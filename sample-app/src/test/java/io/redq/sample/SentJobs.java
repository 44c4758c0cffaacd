package io.redq.sample;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.redq.queue.core.DispatchInterceptor;
import io.redq.queue.core.OutgoingJob;

/**
 * Counts the dispatches taken, by job name, as the dispatch interceptors hear of them: by
 * Redis, or by the outbox when their transaction committed (JobTester's waits wait for
 * its relay). For a test that waits until the dispatches of committed transactions are
 * all taken; {@code redq.jobs.dispatched} does not tell that for a debounced job, since
 * it counts jobs that entered a queue, not a dispatch that replaced the pending job of
 * its id.
 *
 * @author Redq team
 */
public class SentJobs implements DispatchInterceptor {

	private final Map<String, AtomicLong> sent = new ConcurrentHashMap<>();

	@Override
	public void afterDispatch(OutgoingJob job) {
		this.sent.computeIfAbsent(job.getJobName(), (name) -> new AtomicLong()).incrementAndGet();
	}

	/**
	 * Return how many dispatches of a job were taken.
	 * @param jobName the job name
	 * @return the dispatches
	 */
	public long count(String jobName) {
		AtomicLong count = this.sent.get(jobName);
		return (count != null) ? count.get() : 0;
	}

}
