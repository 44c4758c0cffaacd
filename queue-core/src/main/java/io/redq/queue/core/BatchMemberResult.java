package io.redq.queue.core;

import java.util.Optional;

/**
 * The result of a batch member that succeeded.
 *
 * @param <T> the result's type
 * @param member where the member is
 * @param value what its handler returned, read from its queue; empty when it returned
 * nothing, for a nested batch or chain, or when its result expired
 * ({@code redq.results.time-to-live} counts from the member's completion, not from the
 * batch's end)
 * @author Redq team
 * @since 0.1.0
 */
public record BatchMemberResult<T>(BatchMember member, Optional<T> value) {

}
