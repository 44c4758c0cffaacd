package io.redq.queue.core;

import java.time.Duration;
import java.time.Instant;

/**
 * A pending timer: a delayed job keyed by a business key.
 *
 * @param id the timer's job id
 * @param dueAt when it fires (Redis clock)
 * @param remaining how long until it fires, zero when it is due and waits for a worker
 * @author Redq team
 * @since 0.1.0
 * @see JobDispatcher#schedule(String, Object, Instant)
 */
public record Timer(String id, Instant dueAt, Duration remaining) {
}
