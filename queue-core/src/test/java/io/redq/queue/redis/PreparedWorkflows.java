package io.redq.queue.redis;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.BatchDeathPolicy;

/**
 * Batches and chains prepared as {@link WorkflowDispatcher} sends them, built from
 * commands under ids the caller chooses, to any depth: for the script testers, which
 * drive trees of workflows through the dispatcher's own send, and name every job so that
 * a seed reproduces its run.
 *
 * @author Redq team
 */
public final class PreparedWorkflows {

	private PreparedWorkflows() {
	}

	/**
	 * Return a job prepared without dispatch interceptors.
	 * @param command the job and its queue
	 * @return the job
	 */
	public static PreparedJob job(PreparedCommand command) {
		return new PreparedJob(command.queue(), command.queue(), command.command().id(), command.command(), null);
	}

	/**
	 * Return a batch of jobs, batches and chains.
	 * @param id the batch id
	 * @param deathPolicy what the batch does when a member dies
	 * @param linger how long the batch is kept once it ended
	 * @param members the members that are jobs
	 * @param batches the members that are batches
	 * @param chains the members that are chains
	 * @param onSuccess the success callback
	 * @param onComplete the complete callback
	 * @return the batch
	 */
	public static PreparedBatch batch(String id, BatchDeathPolicy deathPolicy, Duration linger,
			List<PreparedCommand> members, List<PreparedBatch> batches, List<PreparedChain> chains,
			PreparedCommand onSuccess, PreparedCommand onComplete) {
		Map<String, PreparedJob> callbacks = new LinkedHashMap<>();
		callbacks.put(BatchOperations.SUCCESS, job(onSuccess));
		callbacks.put(BatchOperations.COMPLETE, job(onComplete));
		return new PreparedBatch(id, deathPolicy, linger, members.stream().map(PreparedWorkflows::job).toList(),
				batches, chains, callbacks);
	}

	/**
	 * Return a chain.
	 * @param id the chain id
	 * @param linger how long the chain is kept once it ended
	 * @param steps the steps: each a {@link PreparedCommand} (a job) or a
	 * {@link PreparedBatch} of jobs
	 * @param onFailure the on-failure job
	 * @return the chain
	 */
	public static PreparedChain chain(String id, Duration linger, List<Object> steps, PreparedCommand onFailure) {
		return new PreparedChain(id, linger,
				steps.stream().map((step) -> (step instanceof PreparedCommand job) ? job(job) : step).toList(),
				job(onFailure));
	}

}
