package io.redq.queue.inspect;

import java.time.Instant;

import io.redq.queue.core.BatchStatus;
import org.jspecify.annotations.Nullable;

/**
 * A batch as the dashboard and the endpoint show it.
 *
 * @param status its state, death policy and counts
 * @param createdAt when it was created, or {@code null} when the index of the batches
 * does not list it
 * @author Redq team
 * @since 0.1.0
 */
public record BatchView(BatchStatus status, @Nullable Instant createdAt) {
}
