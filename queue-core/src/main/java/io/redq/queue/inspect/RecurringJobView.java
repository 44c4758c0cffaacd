package io.redq.queue.inspect;

import java.time.Instant;

import io.redq.queue.recurring.RecurringJobInfo;
import org.jspecify.annotations.Nullable;

/**
 * A recurring job with its latest tick.
 *
 * @param info the job, its schedule, next tick and pause state
 * @param lastTick the latest tick handled by any instance (Redis clock), or {@code null}
 * when none was
 * @author Redq team
 * @since 0.1.0
 */
public record RecurringJobView(RecurringJobInfo info, @Nullable Instant lastTick) {
}
