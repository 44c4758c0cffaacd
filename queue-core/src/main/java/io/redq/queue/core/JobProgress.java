package io.redq.queue.core;

import org.jspecify.annotations.Nullable;

/**
 * How far a job has come, as its handler last reported it and Redq last wrote it: kept
 * while the job lives, across its attempts, and deleted when it completes.
 *
 * @param fraction the fraction done, from 0 to 1, or {@code null} when the handler
 * reported none
 * @param message what the handler said about it, or {@code null}
 * @param cursor the cursor the next attempt resumes at, as JSON, or {@code null} when the
 * job does not iterate or has not written one
 * @author Redq team
 * @since 0.1.0
 */
public record JobProgress(@Nullable Double fraction, @Nullable String message, @Nullable String cursor) {

}
