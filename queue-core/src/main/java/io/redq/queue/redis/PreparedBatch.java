package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.DispatchResult;
import org.jspecify.annotations.Nullable;

/**
 * A batch whose members and callbacks were checked, passed through the dispatch
 * interceptors and written, under a batch id chosen at once, not sent yet: for a batch
 * dispatched inside a transaction, sent after the commit
 * ({@link RedisJobDispatcher#sendBatch(PreparedBatch)}) or stored in a transactional
 * outbox ({@link #command()}). It tells the interceptors how its dispatch ended.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class PreparedBatch {

	private final String id;

	private final BatchDeathPolicy deathPolicy;

	private final Duration linger;

	private final List<PreparedJob> members;

	private final Map<String, PreparedJob> callbacks;

	PreparedBatch(String id, BatchDeathPolicy deathPolicy, Duration linger, List<PreparedJob> members,
			Map<String, PreparedJob> callbacks) {
		this.id = id;
		this.deathPolicy = deathPolicy;
		this.linger = linger;
		this.members = List.copyOf(members);
		this.callbacks = Map.copyOf(callbacks);
	}

	/**
	 * Return the batch id.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	BatchDeathPolicy deathPolicy() {
		return this.deathPolicy;
	}

	Duration linger() {
		return this.linger;
	}

	List<PreparedJob> members() {
		return this.members;
	}

	Map<String, PreparedJob> callbacks() {
		return this.callbacks;
	}

	/**
	 * Return the batch as Redis stores it, for an outbox row.
	 * @return the batch
	 */
	public BatchCommand command() {
		return new BatchCommand(this.id, this.deathPolicy, this.linger,
				this.members.stream().map(PreparedBatch::command).toList(),
				command(this.callbacks.get(BatchOperations.SUCCESS)),
				command(this.callbacks.get(BatchOperations.COMPLETE)));
	}

	/**
	 * Return what a dispatch deferred until a transaction commits returns: the batch id
	 * and each member's id, {@link DispatchResult.Outcome#DEFERRED}.
	 * @return the result
	 */
	public BatchResult deferred() {
		return new BatchResult(this.id,
				this.members.stream()
					.map((member) -> new DispatchResult(member.id(), DispatchResult.Outcome.DEFERRED))
					.toList());
	}

	/**
	 * Tell the interceptors that every member and callback was dispatched: a
	 * transactional outbox that creates the batch committed it.
	 */
	public void dispatched() {
		this.members.forEach(PreparedJob::dispatched);
		this.callbacks.values().forEach(PreparedJob::dispatched);
	}

	/**
	 * Tell the interceptors that no member or callback was dispatched.
	 * @param ex why
	 */
	public void failed(Exception ex) {
		this.members.forEach((member) -> member.failed(ex));
		this.callbacks.values().forEach((callback) -> callback.failed(ex));
	}

	static @Nullable PreparedCommand command(@Nullable PreparedJob job) {
		return (job != null) ? new PreparedCommand(job.queue(), job.command()) : null;
	}

}
