package io.redq.docs.migrating;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The auctions of the "Migrating" examples: records the auctions closed.
 *
 * @author Redq team
 */
class Auctions {

	final List<Long> closed = new CopyOnWriteArrayList<>();

	void close(long auctionId) {
		this.closed.add(auctionId);
	}

}
