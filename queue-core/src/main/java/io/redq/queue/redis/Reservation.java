package io.redq.queue.redis;

import java.util.List;

/**
 * The result of reserving jobs.
 *
 * @param redisTime the Redis clock when the jobs were reserved (epoch ms)
 * @param nextDue when the queue's first delayed job is due or its first lease expires
 * (epoch ms, Redis clock), or -1
 * @param jobs the reserved jobs, possibly none
 * @param missing the ready ids whose envelope was missing from the jobs hash (deleted
 * outside Redq): recorded dead instead of reserved
 * @author Redq team
 * @since 0.1.0
 */
public record Reservation(long redisTime, long nextDue, List<ReservedJob> jobs, List<String> missing) {
}
