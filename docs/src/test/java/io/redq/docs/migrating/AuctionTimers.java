package io.redq.docs.migrating;

// The "Migrating" example for @Scheduled and keyspace notifications, which the page quotes
// whole: an auction closes at its end, which a late bid moves, without a shadow key, an
// expired event or a table to check against.
// tag::class[]
import java.time.Duration;
import java.time.Instant;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.JobDispatcher;

import org.springframework.stereotype.Service;

@Service
class AuctionTimers {

	private final JobDispatcher dispatcher;

	private final Auctions auctions;

	AuctionTimers(JobDispatcher dispatcher, Auctions auctions) {
		this.dispatcher = dispatcher;
		this.auctions = auctions;
	}

	// was: SET auction:42:shadow "" PXAT <end>, and an INSERT into a table of open
	// auctions
	void auctionOpened(long auctionId, Instant endsAt) {
		this.dispatcher.schedule("close-auction", auctionId, endsAt);
	}

	// was: PEXPIREAT on the shadow key, and an UPDATE of the table
	void bidPlaced(long auctionId, Instant endsAt) {
		Instant extended = Instant.now().plus(Duration.ofMinutes(2));
		if (extended.isAfter(endsAt)) {
			this.dispatcher.reschedule("close-auction", auctionId, extended);
		}
	}

	// was: a KeyExpirationEventMessageListener on every instance, and an @Scheduled
	// method that closed the auctions whose expired event never came
	@QueuedJob(name = "close-auction", queue = "auctions")
	void close(long auctionId) {
		this.auctions.close(auctionId);
	}

}
// end::class[]
