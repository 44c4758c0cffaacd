package io.redq.queue.testkit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.listener.JobContext;

/**
 * Jobs of the test kit's tests: they record what ran, on which thread and with which
 * context.
 *
 * @author Redq team
 */
class GreetingJobs {

	final List<Greeted> greeted = new CopyOnWriteArrayList<>();

	@QueuedJob(name = "greet", queue = "greetings")
	void greet(Greeting greeting, JobContext context) {
		if (greeting.name().isEmpty()) {
			throw new IllegalArgumentException("no name");
		}
		this.greeted.add(new Greeted(greeting, context, Thread.currentThread()));
	}

	@QueuedJob(name = "close-auction", queue = "auctions")
	void closeAuction(long auctionId, JobContext context) {
		this.greeted.add(new Greeted(new Greeting("auction " + auctionId), context, Thread.currentThread()));
	}

	record Greeting(String name) {
	}

	record Greeted(Greeting greeting, JobContext context, Thread thread) {
	}

}
