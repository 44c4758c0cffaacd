package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A chain checked and written as Redis stores it, under the id chosen when it was
 * dispatched, to be created later: what a transactional outbox row holds (see
 * {@link ChainOperations#createOnce}).
 *
 * @param id the chain id
 * @param linger how long the chain is kept once it ended
 * @param steps the steps, in order, each with its id {@code <chain id>:<step>} and the
 * chain's headers
 * @param onFailure the job run when a step dies, or {@code null}
 * @author Redq team
 * @since 0.1.0
 */
public record ChainCommand(String id, Duration linger, List<PreparedCommand> steps,
		@Nullable PreparedCommand onFailure) {

}
