package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;

import io.redq.queue.core.BatchDeathPolicy;
import org.jspecify.annotations.Nullable;

/**
 * A batch checked and written as Redis stores it, under the id chosen when it was
 * dispatched, to be created later: what a transactional outbox row holds (see
 * {@link BatchOperations#createOnce}).
 *
 * @param id the batch id
 * @param deathPolicy what the batch does when a member dies
 * @param linger how long the batch is kept once it ended
 * @param members the members, each with its id and the batch's header
 * @param onSuccess the callback run when every member succeeded, or {@code null}
 * @param onComplete the callback run when the batch ended, or {@code null}
 * @author Redq team
 * @since 0.1.0
 */
public record BatchCommand(String id, BatchDeathPolicy deathPolicy, Duration linger, List<PreparedCommand> members,
		@Nullable PreparedCommand onSuccess, @Nullable PreparedCommand onComplete) {

}
