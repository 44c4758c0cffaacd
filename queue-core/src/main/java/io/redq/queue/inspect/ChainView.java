package io.redq.queue.inspect;

import java.time.Instant;

import io.redq.queue.core.ChainStatus;
import org.jspecify.annotations.Nullable;

/**
 * A chain as the dashboard and the endpoint show it.
 *
 * @param status its state, reason and steps
 * @param createdAt when it was created, or {@code null} when the index of the chains does
 * not list it
 * @author Redq team
 * @since 0.1.0
 */
public record ChainView(ChainStatus status, @Nullable Instant createdAt) {
}
