package io.redq.queue.redis;

/**
 * A job as handed out by a reservation.
 *
 * @param id the job id
 * @param envelope the envelope JSON as stored in Redis
 * @param attempt the attempt this reservation is, starting at 1
 * @param token the lease token
 * @author Redq team
 * @since 0.1.0
 */
public record ReservedJob(String id, String envelope, int attempt, String token) {

	/**
	 * Return the lease this reservation holds.
	 * @return the lease
	 */
	public Lease lease() {
		return new Lease(this.id, this.token);
	}

}
