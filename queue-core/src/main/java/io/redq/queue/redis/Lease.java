package io.redq.queue.redis;

/**
 * A worker's hold on a reserved job: only the holder of the current token may
 * acknowledge, fail, extend or release it.
 *
 * @param id the job id
 * @param token the lease token handed out by the reservation
 * @author Redq team
 * @since 0.1.0
 */
public record Lease(String id, String token) {
}
