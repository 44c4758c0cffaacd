package io.redq.queue.core;

import java.time.Instant;
import java.util.Collection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * Dispatches jobs to their queues: now, after a delay, at an instant, or under a
 * caller-chosen id.
 *
 * <pre class="code">
 * dispatcher.dispatch("send-invoice", invoice);
 * dispatcher.dispatch(JobRequest.of("cancel-order", orderId)
 *         .id("cancel-order-" + orderId)
 *         .delay(Duration.ofMinutes(30))
 *         .build());
 * </pre>
 *
 * @author Redq team
 * @since 0.1.0
 */
public interface JobDispatcher {

	/**
	 * Dispatch a job to run now.
	 * @param jobName the job name
	 * @param payload the payload, serialized as JSON
	 * @return the job id and what happened to the job
	 * @throws IllegalArgumentException when no job has that name
	 */
	default DispatchResult dispatch(String jobName, @Nullable Object payload) {
		return dispatch(JobRequest.of(jobName, payload).build());
	}

	/**
	 * Dispatch a job to run now, to the one job whose handler takes the payload's type.
	 * @param payload the payload, serialized as JSON
	 * @return the job id and what happened to the job
	 * @throws IllegalArgumentException when no job, or more than one, takes that type
	 */
	default DispatchResult dispatch(Object payload) {
		return dispatch(JobRequest.of(payload).build());
	}

	/**
	 * Dispatch a job.
	 * @param request the job and its options
	 * @return the job id (the caller-chosen one, or a generated one) and what happened to
	 * the job
	 */
	default DispatchResult dispatch(JobRequest request) {
		return dispatchAll(List.of(request)).get(0);
	}

	/**
	 * Dispatch many jobs in as few Redis round trips as possible: one per queue for up to
	 * 1,000 jobs. Each such batch is enqueued atomically.
	 * @param requests the jobs
	 * @return the job ids and what happened to each job, in the order of the requests
	 */
	List<DispatchResult> dispatchAll(Collection<JobRequest> requests);

	/**
	 * Dispatch a job to run now, without waiting for Redis.
	 * @param jobName the job name
	 * @param payload the payload, serialized as JSON
	 * @return the job id and what happened to the job, once the job is in Redis
	 * @throws IllegalArgumentException when no job has that name
	 * @see #dispatchAsync(JobRequest)
	 */
	default CompletableFuture<DispatchResult> dispatchAsync(String jobName, @Nullable Object payload) {
		return dispatchAsync(JobRequest.of(jobName, payload).build());
	}

	/**
	 * Dispatch a job without waiting for Redis. The job is checked and written as JSON at
	 * once; the Redis dispatcher sends it as {@link #dispatch(JobRequest)} would, in the
	 * order of the calls, together with the dispatches of its queue that arrived while a
	 * call for that queue was in flight. A dispatch made meanwhile by
	 * {@link #dispatchAll(Collection)} may get there first. The call waits only while
	 * 10,000 asynchronous dispatches are pending. Callbacks on the future run on the
	 * thread that sends the jobs unless given an executor: they should not block.
	 * @param request the job and its options
	 * @return the job id and what happened to the job, once the job is in Redis;
	 * completed exceptionally when Redis refused or did not answer (the job may then be
	 * in Redis or not), or when the dispatcher closed before Redis took the job
	 * @throws IllegalArgumentException when the request is invalid, as for
	 * {@link #dispatch(JobRequest)}
	 * @throws IllegalStateException when the dispatcher is closed
	 */
	CompletableFuture<DispatchResult> dispatchAsync(JobRequest request);

	/**
	 * Dispatch jobs as one batch, whose callbacks are enqueued once when it ends (see
	 * {@link BatchRequest}). Every member and callback is checked before any is sent; the
	 * members are sent as {@link #dispatchAll} sends jobs. A dispatch that throws after
	 * some members were enqueued leaves those to run, and the batch, never opened, to
	 * expire with no callback.
	 * @param request the batch
	 * @return the batch id and each member's id
	 * @throws IllegalArgumentException when a member or callback is invalid, as for
	 * {@link #dispatch(JobRequest)}
	 * @throws UnsupportedOperationException when this dispatcher keeps no batches
	 */
	default BatchResult dispatchBatch(BatchRequest request) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " does not dispatch batches");
	}

	/**
	 * Add members to a running batch, from one of its members while it runs: a job that
	 * fans out more work into its own batch. The batch then stays open until they finish
	 * too, and counts them in its total. Checked and sent as
	 * {@link #dispatchBatch(BatchRequest)} sends members; each gets an id of its own and
	 * the batch's header.
	 * @param batchId the batch id, the {@value BatchRequest#BATCH_HEADER} header of the
	 * adding member
	 * @param memberId the adding member's id, which must still be pending in the batch
	 * (running, its completion not handed over yet)
	 * @param members the jobs to add, each without an id of its own
	 * @return what happened to each added member, in order
	 * @throws IllegalArgumentException when a member is invalid, as for
	 * {@link #dispatch(JobRequest)}
	 * @throws IllegalStateException when the batch ended, or the adding member is not
	 * pending in it
	 * @throws UnsupportedOperationException when this dispatcher keeps no batches
	 */
	default List<DispatchResult> addToBatch(String batchId, String memberId, Collection<JobRequest> members) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep batches");
	}

	/**
	 * Return a batch: its state and counts. A batch is kept until its linger has passed
	 * after it ended.
	 * @param batchId the batch id
	 * @return the batch, or empty when none is kept under that id
	 * @throws UnsupportedOperationException when this dispatcher keeps no batches
	 */
	default Optional<BatchStatus> findBatch(String batchId) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep batches");
	}

	/**
	 * Return a page of a batch's dead members, in the order they died. Each is found in
	 * its queue's dead jobs while they keep it.
	 * @param batchId the batch id
	 * @param offset how many to skip
	 * @param count how many to return, at most 1,000
	 * @return the members, empty when none or no batch is kept under that id
	 * @throws UnsupportedOperationException when this dispatcher keeps no batches
	 */
	default List<BatchMember> deadBatchMembers(String batchId, int offset, int count) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep batches");
	}

	/**
	 * Cancel a running batch: its pending (ready or delayed) members are cancelled in
	 * their queues, those running finish. The batch then ends as
	 * {@linkplain BatchStatus.State#CANCELLED cancelled} (or failed, when a member died)
	 * once every member finished, and its on-complete callback runs; its on-success
	 * callback never does.
	 * @param batchId the batch id
	 * @return whether a running batch was cancelled
	 * @throws UnsupportedOperationException when this dispatcher keeps no batches
	 */
	default boolean cancelBatch(String batchId) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep batches");
	}

	/**
	 * Dispatch jobs as a chain, each step started once the step before it succeeded (see
	 * {@link ChainRequest}). Every step and the on-failure job are checked before any is
	 * sent; the first step is enqueued, the others are kept in Redis until the step
	 * before each succeeded.
	 * @param request the chain
	 * @return the chain id and each step's job id
	 * @throws IllegalArgumentException when a step or the on-failure job is invalid, as
	 * for {@link #dispatch(JobRequest)}
	 * @throws UnsupportedOperationException when this dispatcher keeps no chains
	 */
	default ChainResult dispatchChain(ChainRequest request) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " does not dispatch chains");
	}

	/**
	 * Return a chain: its state and each step's. A chain is kept until its linger has
	 * passed after it ended.
	 * @param chainId the chain id
	 * @return the chain, or empty when none is kept under that id
	 * @throws UnsupportedOperationException when this dispatcher keeps no chains
	 */
	default Optional<ChainStatus> findChain(String chainId) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep chains");
	}

	/**
	 * Cancel a running chain: its current step is cancelled in its queue when pending
	 * (ready or delayed), or finishes when running; no later step starts. The chain then
	 * ends as {@linkplain ChainStatus.State#CANCELLED cancelled} (or failed, when the
	 * current step dies), and its on-failure job runs only if a step died.
	 * @param chainId the chain id
	 * @return whether a running chain was cancelled
	 * @throws UnsupportedOperationException when this dispatcher keeps no chains
	 */
	default boolean cancelChain(String chainId) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep chains");
	}

	/**
	 * Cancel a pending (ready or delayed) job, or else the dispatch queued behind the
	 * running job with that id (see {@link Uniqueness#UNTIL_STARTED}). A job that is
	 * running or finished is not touched.
	 * @param queue the queue
	 * @param id the job id
	 * @return whether a pending job, or a dispatch queued behind the running one, was
	 * removed
	 */
	boolean cancel(String queue, String id);

	/**
	 * Set a timer: run the job with {@code key} as payload at {@code at}, e.g.
	 * {@code schedule("close-auction", 42, endsAt)}. The timer is keyed by job and key:
	 * scheduling the same key again moves the pending timer instead of adding a second
	 * one (while the timer runs, the new one is dropped). The timer is a dispatch of
	 * {@link #timerRequest}.
	 * @param jobName the job name
	 * @param key the business key, also the payload
	 * @param at when the timer fires (millisecond resolution, Redis clock)
	 * @return the timer's job id, {@code <jobName>:<key>}, and whether the timer was
	 * {@linkplain DispatchResult.Outcome#CREATED created},
	 * {@linkplain DispatchResult.Outcome#REPLACED moved} or
	 * {@linkplain DispatchResult.Outcome#DROPPED dropped} because it runs
	 */
	DispatchResult schedule(String jobName, Object key, Instant at);

	/**
	 * Set many timers of one job, as {@link #schedule} does for each. The Redis
	 * dispatcher sends them as {@link #dispatchAll} does, in one script call per queue
	 * and 1,000 timers (20,000 timers from one thread in 20 calls); the default calls
	 * {@link #schedule} for each. Each timer is a dispatch of {@link #timerRequest}.
	 * @param jobName the job name
	 * @param timers when each timer fires, by business key (each key is also its timer's
	 * payload); iterated once, in the map's order
	 * @return each timer's id and outcome, in the map's order
	 */
	default List<DispatchResult> scheduleAll(String jobName, Map<?, Instant> timers) {
		List<DispatchResult> results = new ArrayList<>(timers.size());
		timers.forEach((key, at) -> results.add(schedule(jobName, key, at)));
		return results;
	}

	/**
	 * Return the dispatch that a timer is: the job with {@code key} as its payload, at
	 * {@code at}, under the id {@code <jobName>:<key>} with
	 * {@link DuplicatePolicy#REPLACE}, which moves a pending timer of the same key.
	 * @param jobName the job name
	 * @param key the business key, also the payload
	 * @param at when the timer fires
	 * @return the request
	 * @throws IllegalArgumentException when {@code <jobName>:<key>} is not a valid job id
	 */
	static JobRequest timerRequest(String jobName, Object key, Instant at) {
		return JobRequest.of(jobName, key)
			.id(QueueNames.validateId(jobName + ":" + key), DuplicatePolicy.REPLACE)
			.at(at)
			.build();
	}

	/**
	 * Return the dispatches that timers of one job are (see {@link #timerRequest}).
	 * @param jobName the job name
	 * @param timers when each timer fires, by business key; iterated once
	 * @return the requests, in the map's order
	 */
	static List<JobRequest> timerRequests(String jobName, Map<?, Instant> timers) {
		List<JobRequest> requests = new ArrayList<>(timers.size());
		timers.forEach((key, at) -> requests.add(timerRequest(jobName, key, at)));
		return requests;
	}

	/**
	 * Move a pending timer to a new instant in one step: it is never absent or doubled
	 * meanwhile.
	 * @param jobName the job name
	 * @param key the business key
	 * @param at the new time the timer fires
	 * @return {@code false} when no timer with that key is pending (it ran, runs, or
	 * never existed)
	 */
	boolean reschedule(String jobName, Object key, Instant at);

	/**
	 * Cancel a pending timer.
	 * @param jobName the job name
	 * @param key the business key
	 * @return whether a pending timer was removed
	 */
	boolean cancelTimer(String jobName, Object key);

	/**
	 * Return a pending timer with its due time and remaining time.
	 * @param jobName the job name
	 * @param key the business key
	 * @return the timer, or empty when none is pending
	 */
	Optional<Timer> findTimer(String jobName, Object key);

}
