package io.redq.docs.migrating;

// The "Migrating" example for RDelayedQueue users, which the page quotes whole: an unpaid
// order is cancelled 30 minutes after it was placed, unless its payment cancels the timer.
// tag::class[]
import java.time.Duration;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;

import org.springframework.stereotype.Service;

@Service
class OrderTimeouts {

	private final JobDispatcher dispatcher;

	private final Orders orders;

	OrderTimeouts(JobDispatcher dispatcher, Orders orders) {
		this.dispatcher = dispatcher;
		this.orders = orders;
	}

	// was: delayedQueue.offer(orderId, 30, TimeUnit.MINUTES)
	void orderPlaced(String orderId) {
		this.dispatcher.dispatch(JobRequest.of("cancel-unpaid", orderId)
			.id("cancel-unpaid:" + orderId, DuplicatePolicy.KEEP)
			.delay(Duration.ofMinutes(30))
			.build());
	}

	// was: delayedQueue.remove(orderId), which searches the whole list
	void orderPaid(String orderId) {
		this.dispatcher.cancel("orders", "cancel-unpaid:" + orderId);
	}

	// was: a thread looping on blockingQueue.take(), which loses the order if it dies
	@QueuedJob(name = "cancel-unpaid", queue = "orders", maxAttempts = 5)
	void cancelUnpaid(String orderId) {
		this.orders.cancelIfUnpaid(orderId);
	}

}
// end::class[]
