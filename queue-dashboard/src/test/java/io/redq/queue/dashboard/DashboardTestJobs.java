package io.redq.queue.dashboard;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.annotation.Recurring;

/**
 * The jobs of the dashboard's test applications: job {@code work} on queue {@code ops},
 * which fails (and dies, after its one attempt) when its payload starts with
 * {@code fail}, and the first time only when it starts with {@code once}, with the
 * payload as the exception's message.
 *
 * @author Redq team
 */
class DashboardTestJobs {

	static final String QUEUE = "ops";

	final AtomicInteger started = new AtomicInteger();

	private final Set<String> failedOnce = ConcurrentHashMap.newKeySet();

	@QueuedJob(name = "nightly", queue = QUEUE)
	@Recurring(cron = "0 0 3 * * *")
	void nightly() {
	}

	@QueuedJob(name = "work", queue = QUEUE, maxAttempts = 1)
	void work(String payload) {
		this.started.incrementAndGet();
		if (payload.startsWith("fail") || (payload.startsWith("once") && this.failedOnce.add(payload))) {
			throw new IllegalStateException(payload);
		}
	}

}
