package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
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
 * ({@link WorkflowDispatcher#sendBatch(PreparedBatch)}) or stored in a transactional
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

	private final List<PreparedBatch> batches;

	private final List<PreparedChain> chains;

	private final Map<String, PreparedJob> callbacks;

	PreparedBatch(String id, BatchDeathPolicy deathPolicy, Duration linger, List<PreparedJob> members,
			List<PreparedBatch> batches, List<PreparedChain> chains, Map<String, PreparedJob> callbacks) {
		this.id = id;
		this.deathPolicy = deathPolicy;
		this.linger = linger;
		this.members = List.copyOf(members);
		this.batches = List.copyOf(batches);
		this.chains = List.copyOf(chains);
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

	/** The members that are batches of their own. */
	List<PreparedBatch> batches() {
		return this.batches;
	}

	/** The members that are chains. */
	List<PreparedChain> chains() {
		return this.chains;
	}

	Map<String, PreparedJob> callbacks() {
		return this.callbacks;
	}

	/**
	 * Return the ids of every member: the jobs', then the nested batches' and chains'.
	 * @return the ids
	 */
	List<String> memberIds() {
		List<String> ids = new ArrayList<>(this.members.stream().map(PreparedJob::id).toList());
		this.batches.forEach((batch) -> ids.add(batch.id()));
		this.chains.forEach((chain) -> ids.add(chain.id()));
		return ids;
	}

	/**
	 * Return the members' queues, with {@link BatchOperations#BATCH_QUEUE} and
	 * {@link BatchOperations#CHAIN_QUEUE} for the nested batches and chains.
	 * @return the queues
	 */
	List<String> queues() {
		List<String> queues = new ArrayList<>(this.members.stream().map(PreparedJob::queue).distinct().toList());
		if (!this.batches.isEmpty()) {
			queues.add(BatchOperations.BATCH_QUEUE);
		}
		if (!this.chains.isEmpty()) {
			queues.add(BatchOperations.CHAIN_QUEUE);
		}
		return queues;
	}

	/**
	 * Return the batch as Redis stores it, for an outbox row: its nested batches and
	 * chains as members of their own ({@link BatchCommand#nest()},
	 * {@link ChainCommand#nest()}), after its jobs, in the order of {@link #memberIds()}.
	 * @return the batch
	 */
	public BatchCommand command() {
		List<PreparedCommand> members = new ArrayList<>(this.members.stream().map(PreparedBatch::command).toList());
		this.batches.forEach((batch) -> members.add(batch.command().nest()));
		this.chains.forEach((chain) -> members.add(chain.command().nest()));
		return new BatchCommand(this.id, this.deathPolicy, this.linger, members,
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
				memberIds().stream().map((id) -> new DispatchResult(id, DispatchResult.Outcome.DEFERRED)).toList());
	}

	/**
	 * Tell the interceptors that every member and callback was dispatched: a
	 * transactional outbox that creates the batch committed it.
	 */
	public void dispatched() {
		this.members.forEach(PreparedJob::dispatched);
		this.batches.forEach(PreparedBatch::dispatched);
		this.chains.forEach(PreparedChain::dispatched);
		this.callbacks.values().forEach(PreparedJob::dispatched);
	}

	/**
	 * Tell the interceptors that no member or callback was dispatched.
	 * @param ex why
	 */
	public void failed(Exception ex) {
		this.members.forEach((member) -> member.failed(ex));
		this.batches.forEach((batch) -> batch.failed(ex));
		this.chains.forEach((chain) -> chain.failed(ex));
		this.callbacks.values().forEach((callback) -> callback.failed(ex));
	}

	static @Nullable PreparedCommand command(@Nullable PreparedJob job) {
		return (job != null) ? new PreparedCommand(job.queue(), job.command()) : null;
	}

}
