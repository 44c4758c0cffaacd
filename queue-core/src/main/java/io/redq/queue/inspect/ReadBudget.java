package io.redq.queue.inspect;

/**
 * How many entries the searches and the filtered reads of dead jobs of one application
 * instance may read: at most {@value JobQueueInspector#MAX_SEARCH_READS} per request, and
 * at most {@value JobQueueInspector#MAX_SEARCH_READS_PER_SECOND} per second for all
 * requests together (a bucket that refills evenly over the second), so that open pages
 * and repeated searches cannot keep Redis busy. A request that runs out stops where it is
 * and says that it did not read everything.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class ReadBudget {

	private static final double NANOS_PER_SECOND = 1e9;

	private final int perRequest;

	private final int perSecond;

	private double left;

	private long refilledAt = System.nanoTime();

	ReadBudget(int perRequest, int perSecond) {
		this.perRequest = perRequest;
		this.perSecond = perSecond;
		this.left = perSecond;
	}

	/**
	 * Start the reads of one request.
	 * @return what the request may read
	 */
	Request request() {
		return new Request();
	}

	private synchronized boolean take(int entries) {
		long now = System.nanoTime();
		this.left = Math.min(this.perSecond, this.left + (now - this.refilledAt) * this.perSecond / NANOS_PER_SECOND);
		this.refilledAt = now;
		if (this.left < entries) {
			return false;
		}
		this.left -= entries;
		return true;
	}

	/**
	 * The entries one request may still read; used by one thread.
	 */
	final class Request {

		private int read;

		/**
		 * Take entries to read, if both the request and the instance have them left.
		 * @param entries how many entries the next read reads at most
		 * @return whether to read them; {@code false} to stop reading
		 */
		boolean take(int entries) {
			if (this.read + entries > ReadBudget.this.perRequest || !ReadBudget.this.take(entries)) {
				return false;
			}
			this.read += entries;
			return true;
		}

	}

}
