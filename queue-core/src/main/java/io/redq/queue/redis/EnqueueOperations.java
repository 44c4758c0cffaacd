package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.DispatchTimeoutException;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobMetrics;
import io.redq.queue.core.ReplicationTimeoutException;
import io.redq.queue.core.Uniqueness;
import io.redq.queue.script.QueueScripts;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * The producers' call: enqueue jobs, each batch in one script call.
 * <p>
 * Each script call is one call of the {@link ResendProtection}: Lettuce re-sends a
 * command whose reply was lost when it reconnects, and that same call then changes
 * nothing and gets the same reply, even when its jobs ran and completed meanwhile.
 * <p>
 * Every job that Redq puts in a queue passes here, through
 * {@link #entered(String, String)} or {@link #stepsEntered(String, List)}: dispatches,
 * batch members, chain steps, callbacks, outbox relays and recurring ticks. This is the
 * one place that reports a job entering its queue to the {@link JobMetrics}, once Redis
 * said it did.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class EnqueueOperations {

	/** The outcomes by the codes {@code enqueue.lua} and {@code push.lua} return. */
	private static final Outcome[] OUTCOMES = { Outcome.KEPT, Outcome.CREATED, Outcome.REPLACED, Outcome.QUEUED,
			Outcome.DROPPED };

	private static final Log logger = LogFactory.getLog(EnqueueOperations.class);

	private final QueueStore store;

	private volatile JobMetrics metrics = JobMetrics.NONE;

	/**
	 * Create an instance.
	 * @param store the queues
	 */
	public EnqueueOperations(QueueStore store) {
		this.store = store;
	}

	/**
	 * Set the metrics to report each job that enters a queue to, as
	 * {@link JobMetrics#dispatched(String, String)} describes.
	 * <p>
	 * Default {@link JobMetrics#NONE}.
	 * @param metrics the metrics
	 */
	public void setMetrics(JobMetrics metrics) {
		this.metrics = metrics;
	}

	QueueStore getStore() {
		return this.store;
	}

	/**
	 * Enqueue jobs, each {@value QueueStore#MAX_BATCH_SIZE} in one atomic step that is a
	 * call of its own of the {@link ResendProtection}, in order.
	 * @param queue the queue
	 * @param commands the jobs
	 * @return what happened to each job, in order
	 */
	public List<DispatchResult> enqueue(String queue, List<EnqueueCommand> commands) {
		return enqueue(queue, commands, null);
	}

	/**
	 * Enqueue jobs, each {@value QueueStore#MAX_BATCH_SIZE} in one atomic step that is a
	 * call of its own of the {@link ResendProtection}, in order, waiting at most the
	 * given time for each step's reply.
	 * <p>
	 * A step that times out is not cancelled: Lettuce holds it until it has its reply or
	 * its own command timeout, and may re-send it meanwhile after a reconnect, so its
	 * lane stays taken until then.
	 * @param queue the queue
	 * @param commands the jobs
	 * @param timeout the longest wait for each step's reply, besides the wait for
	 * replicas, or {@code null} for Lettuce's command timeout
	 * @return what happened to each job, in order
	 * @throws DispatchTimeoutException when a step had no reply within the timeout; the
	 * steps before it are enqueued
	 */
	public List<DispatchResult> enqueue(String queue, List<EnqueueCommand> commands, @Nullable Duration timeout) {
		return enqueue(queue, commands, timeout, null);
	}

	/**
	 * Enqueue jobs as {@link #enqueue(String, List, Duration)} does, as members of a
	 * batch when given one: each job created is linked to the batch in the same step, so
	 * that its completion is handed over to the batch.
	 * @param queue the queue
	 * @param commands the jobs
	 * @param timeout the longest wait for each step's reply, besides the wait for
	 * replicas, or {@code null} for Lettuce's command timeout
	 * @param batchId the batch of the jobs, or {@code null} for none
	 * @return what happened to each job, in order
	 * @throws DispatchTimeoutException when a step had no reply within the timeout; the
	 * steps before it are enqueued
	 */
	public List<DispatchResult> enqueue(String queue, List<EnqueueCommand> commands, @Nullable Duration timeout,
			@Nullable String batchId) {
		List<DispatchResult> results = new ArrayList<>(commands.size());
		for (int from = 0; from < commands.size(); from += QueueStore.MAX_BATCH_SIZE) {
			List<EnqueueCommand> batch = commands.subList(from,
					Math.min(commands.size(), from + QueueStore.MAX_BATCH_SIZE));
			results.addAll(await(enqueueAsync(queue, batch, batchId), queue, batch, timeout));
		}
		return results;
	}

	/**
	 * Enqueue at most {@value QueueStore#MAX_BATCH_SIZE} jobs in one atomic step that is
	 * a call of its own of the {@link ResendProtection}, without waiting for its reply.
	 * @param queue the queue
	 * @param batch the jobs
	 * @param batchId the batch the jobs are members of, or {@code null} for none
	 * @return what happened to each job, in order, once the call has its reply; or the
	 * failure, a {@link ReplicationTimeoutException} when fewer replicas confirmed the
	 * writes within their timeout
	 */
	CompletableFuture<List<DispatchResult>> enqueueAsync(String queue, List<EnqueueCommand> batch,
			@Nullable String batchId) {
		Assert.isTrue(batch.size() <= QueueStore.MAX_BATCH_SIZE,
				() -> "At most " + QueueStore.MAX_BATCH_SIZE + " jobs per step; got " + batch.size());
		// the first dispatch to a sharded queue reads its placement within the caller's
		// wait for the reply
		CompletableFuture<List<String>> shards = this.store.queueShards().shardsAsync(queue);
		if (shards.isDone() && shards.join().size() == 1) {
			return enqueueShardAsync(queue, queue, batch, batchId);
		}
		return shards.thenCompose((names) -> (names.size() == 1) ? enqueueShardAsync(queue, queue, batch, batchId)
				: enqueueShardsAsync(queue, batch, batchId));
	}

	private CompletableFuture<List<DispatchResult>> enqueueShardsAsync(String queue, List<EnqueueCommand> batch,
			@Nullable String batchId) {
		List<CompletableFuture<List<DispatchResult>>> replies = new ArrayList<>();
		Map<String, List<Integer>> split = split(queue, batch);
		split.forEach((shard, indexes) -> replies.add(enqueueShardAsync(queue, shard, part(batch, indexes), batchId)));
		return CompletableFuture.allOf(replies.toArray(new CompletableFuture<?>[0]))
			.thenApply((done) -> merged(batch.size(), split, replies.stream().map(CompletableFuture::join).toList()));
	}

	private CompletableFuture<List<DispatchResult>> enqueueShardAsync(String queue, String shard,
			List<EnqueueCommand> batch, @Nullable String batchId) {
		ResendProtection resends = this.store.getResendProtection();
		ResendProtection.Call call = resends.begin(this.store.keys(shard));
		CompletableFuture<List<?>> reply;
		try {
			// push.lua links no batch
			boolean push = batchId == null && pushes(batch);
			List<String> args = args(batch, push);
			if (batchId != null) {
				args.add(batchId);
			}
			reply = this.store.runForListOnReplicasAsync(script(push), this.store.keysOf(shard, call),
					QueueStore.argsOf(call, args), written(shard, batch));
		}
		catch (RuntimeException ex) {
			resends.end(call);
			throw ex;
		}
		// the lane is free once the call can no longer be re-sent
		reply.whenComplete((codes, ex) -> resends.end(call));
		// on the reply, not in the caller: a job that Redis took after its caller timed
		// out entered the queue all the same; so did the jobs of a call its replicas did
		// not confirm, counted once since a retry is a new call, answered KEPT
		return reply.whenComplete((codes, ex) -> enteredUnconfirmed(queue, batch, ex))
			.thenApply((codes) -> entered(queue, batch, results(batch, codes)));
	}

	/**
	 * Return how long a dispatch waits at most for a call's reply, given its timeout: the
	 * wait for replicas, when configured, comes on top.
	 * @param timeout the dispatch's timeout
	 * @return the longest wait
	 */
	Duration replyTimeout(Duration timeout) {
		return timeout.plus(this.store.getReplicaWait().longestWait());
	}

	private List<DispatchResult> await(CompletableFuture<List<DispatchResult>> reply, String queue,
			List<EnqueueCommand> batch, @Nullable Duration timeout) {
		try {
			// a ReplicationTimeoutException says more than a timeout while replicas lag
			return AsyncCalls.await(reply, (timeout != null) ? replyTimeout(timeout) : null,
					() -> new DispatchTimeoutException(queue, batch.size(), timeout), "take " + written(queue, batch));
		}
		catch (ReplicationTimeoutException ex) {
			throw ex.forJobs(ids(batch));
		}
	}

	/**
	 * Enqueue at most {@value QueueStore#MAX_BATCH_SIZE} jobs in one atomic step, as the
	 * given call: when Redis still remembers that call, nothing changes and its reply is
	 * returned again. {@link #enqueue(String, List)} calls this with a new call per step;
	 * a second run of one call is what Lettuce sends when it re-sends the first.
	 * @param queue the queue
	 * @param call the call (see {@link ResendProtection#begin(QueueKeys)})
	 * @param batch the jobs
	 * @return what happened to each job, in order
	 */
	public List<DispatchResult> enqueue(String queue, ResendProtection.Call call, List<EnqueueCommand> batch) {
		return entered(queue, batch, enqueue(queue, call, batch, null));
	}

	/**
	 * Enqueue as the given call without reporting the jobs: its caller reports them once
	 * the whole call succeeded. A call of a fixed id that failed is repeated under that
	 * id until it succeeds, and Redis answers the repeat as it answered the first, so
	 * that counting a failed call's jobs too would count them twice.
	 */
	private List<DispatchResult> enqueue(String shard, ResendProtection.Call call, List<EnqueueCommand> batch,
			@Nullable String batchId) {
		Assert.isTrue(batch.size() <= QueueStore.MAX_BATCH_SIZE,
				() -> "At most " + QueueStore.MAX_BATCH_SIZE + " jobs per step; got " + batch.size());
		// push.lua links no batch
		boolean push = batchId == null && pushes(batch);
		List<String> args = args(batch, push);
		if (batchId != null) {
			args.add(batchId);
		}
		try {
			return results(batch, this.store.runForListOnReplicas(script(push), this.store.keysOf(shard, call),
					QueueStore.argsOf(call, args), written(shard, batch)));
		}
		catch (ReplicationTimeoutException ex) {
			throw ex.forJobs(ids(batch));
		}
	}

	private static List<String> ids(List<EnqueueCommand> batch) {
		return batch.stream().map(EnqueueCommand::id).toList();
	}

	private static String written(String queue, List<EnqueueCommand> batch) {
		return batch.size() + " job(s) of queue '" + queue + "'";
	}

	private static List<DispatchResult> results(List<EnqueueCommand> batch, List<?> codes) {
		if (codes.size() != batch.size()) {
			throw new Forestalled("Redis remembers another reply for this call, of " + codes.size()
					+ " job(s) where it took " + batch.size() + ": the call was forestalled, by a batch that settled "
					+ "the members added by a job that finished meanwhile (its lease expired, or its queue was purged), "
					+ "which were counted cancelled, or by the cancel of their batch or chain; nothing was enqueued");
		}
		List<DispatchResult> results = new ArrayList<>(batch.size());
		for (int i = 0; i < batch.size(); i++) {
			results.add(new DispatchResult(batch.get(i).id(), OUTCOMES[((Number) codes.get(i)).intValue()]));
		}
		return results;
	}

	/**
	 * Enqueue at most {@value QueueStore#MAX_BATCH_SIZE} jobs in one atomic step as a
	 * call made under the caller's own id (see {@link ResendProtection#once}): sent again
	 * within the window, it changes nothing and gets the same reply, even when its jobs
	 * completed meanwhile.
	 * @param queue the queue
	 * @param callId the call's id, unique and unguessable (see
	 * {@link ResendProtection#newId()})
	 * @param batch the jobs
	 * @param window how long Redis remembers the call
	 * @return what happened to each job, in order
	 */
	public List<DispatchResult> enqueueOnce(String queue, String callId, List<EnqueueCommand> batch, Duration window) {
		return enqueueOnce(queue, callId, batch, window, null);
	}

	/**
	 * Enqueue jobs as {@link #enqueueOnce(String, String, List, Duration)} does, linked
	 * to a batch or chain when given one (see
	 * {@link #enqueue(String, List, Duration, String)}).
	 * @param queue the queue
	 * @param callId the call's id, unique and unguessable
	 * @param batch the jobs
	 * @param window how long Redis remembers the call
	 * @param batchId the batch (or chain link) of the jobs, or {@code null} for none
	 * @return what happened to each job, in order
	 */
	public List<DispatchResult> enqueueOnce(String queue, String callId, List<EnqueueCommand> batch, Duration window,
			@Nullable String batchId) {
		if (this.store.queueShards().shards(queue).size() == 1) {
			return entered(queue, batch,
					enqueue(queue, ResendProtection.once(this.store.keys(queue), callId, window), batch, batchId));
		}
		// one call of the same id per shard, each remembered in its own shard
		Map<String, List<Integer>> split = split(queue, batch);
		List<List<DispatchResult>> parts = new ArrayList<>();
		split.forEach((shard, indexes) -> parts.add(enqueue(shard,
				ResendProtection.once(this.store.keys(shard), callId, window), part(batch, indexes), batchId)));
		return entered(queue, batch, merged(batch.size(), split, parts));
	}

	/**
	 * Report the jobs of a reply that entered the queue: those {@link Outcome#CREATED} or
	 * {@link Outcome#QUEUED}. A job kept, dropped or replaced in favour of one with its
	 * id is not another job in the queue. A failure to report is logged, not thrown: the
	 * jobs are in Redis, and a caller told otherwise would dispatch them again.
	 * @param queue the logical queue
	 * @param batch the jobs
	 * @param results what happened to each, in order
	 * @return the results
	 */
	private List<DispatchResult> entered(String queue, List<EnqueueCommand> batch, List<DispatchResult> results) {
		JobMetrics metrics = this.metrics;
		if (metrics == JobMetrics.NONE) {
			return results;
		}
		try {
			for (int i = 0; i < results.size(); i++) {
				Outcome outcome = results.get(i).outcome();
				if (outcome == Outcome.CREATED || outcome == Outcome.QUEUED) {
					metrics.dispatched(queue, JobEnvelope.nameOf(batch.get(i).body()));
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Failed to report " + results.size() + " enqueued job(s) of queue '" + queue + "' to metrics",
					ex);
		}
		return results;
	}

	/**
	 * Report the jobs that a call entered in the queue when it failed because fewer
	 * replicas than required confirmed it within their timeout: its script ran on the
	 * master, and they will run. Any other failure reports nothing.
	 * @param queue the logical queue
	 * @param batch the jobs of the call
	 * @param failure the call's failure, or {@code null} for none
	 */
	private void enteredUnconfirmed(String queue, List<EnqueueCommand> batch, @Nullable Throwable failure) {
		Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
		// a reply of another size is that of a forestalled call, which enqueued nothing
		if (cause instanceof ReplicaWait.Unconfirmed unconfirmed && unconfirmed.getReply().size() == batch.size()) {
			entered(queue, batch, results(batch, unconfirmed.getReply()));
		}
	}

	/**
	 * Report a job that a script of its own put in its queue, such as a recurring tick,
	 * as {@link #entered(String, List, List)} does.
	 * @param queue the queue
	 * @param jobName the job name
	 */
	void entered(String queue, String jobName) {
		try {
			this.metrics.dispatched(queue, jobName);
		}
		catch (RuntimeException ex) {
			logger.warn("Failed to report an enqueued job of queue '" + queue + "' to metrics", ex);
		}
	}

	/**
	 * Report the chain steps that an acknowledgement created in the queue of the step
	 * before ({@code batch_member_done} in {@code common.lua}), named by the nested list
	 * of job names that ends the reply of {@code ack.lua} and {@code hold.lua}, and
	 * return the reply without it. A reply without such a list (no step created, or a
	 * script from before they were counted) is returned as it is.
	 * @param queue the logical queue
	 * @param reply the script's reply
	 * @return the reply without the steps' names
	 */
	List<?> stepsEntered(String queue, List<?> reply) {
		if (reply.isEmpty() || !(reply.get(reply.size() - 1) instanceof List<?> jobNames)) {
			return reply;
		}
		for (Object jobName : jobNames) {
			entered(queue, (String) jobName);
		}
		return reply.subList(0, reply.size() - 1);
	}

	/**
	 * Return the positions of the jobs that go to each shard of a sharded queue (see
	 * {@link QueueStore#shardOf(String, String)}): a job in a group goes to the group's
	 * shard and one of a caller-given id to the id's, so that the group's turns and
	 * limits and the id's uniqueness hold as on one shard; the others all go to the next
	 * shard in turn, so that a batch without keys is one script call on one master (the
	 * calls spread the jobs), not one smaller call per shard.
	 */
	private Map<String, List<Integer>> split(String queue, List<EnqueueCommand> batch) {
		Map<String, List<Integer>> split = new LinkedHashMap<>();
		String turn = null;
		for (int i = 0; i < batch.size(); i++) {
			EnqueueCommand command = batch.get(i);
			String group = JobEnvelope.groupOf(command.body());
			String key = (group != null) ? group : command.generatedId() ? null : command.id();
			String shard;
			if (key != null) {
				shard = this.store.shardChoice().shardOf(queue, key);
			}
			else {
				turn = (turn != null) ? turn : this.store.shardChoice().shardOf(queue, null);
				shard = turn;
			}
			split.computeIfAbsent(shard, (name) -> new ArrayList<>()).add(i);
		}
		return split;
	}

	private static List<EnqueueCommand> part(List<EnqueueCommand> batch, List<Integer> indexes) {
		return indexes.stream().map(batch::get).toList();
	}

	private static List<DispatchResult> merged(int size, Map<String, List<Integer>> split,
			List<List<DispatchResult>> parts) {
		DispatchResult[] results = new DispatchResult[size];
		int part = 0;
		for (List<Integer> indexes : split.values()) {
			List<DispatchResult> shardResults = parts.get(part++);
			for (int i = 0; i < indexes.size(); i++) {
				results[indexes.get(i)] = shardResults.get(i);
			}
		}
		return List.of(results);
	}

	/**
	 * Make the call of the given id, as {@link #enqueueOnce} makes it, with no jobs,
	 * unless Redis remembers it: the call, should it still come within the window,
	 * changes nothing and throws {@link Forestalled}.
	 * @param queue the queue
	 * @param callId the call's id
	 * @param window how long Redis remembers the call
	 * @throws ReplicationTimeoutException when fewer replicas confirmed the call within
	 * their timeout; it is on the master
	 */
	void forestall(String queue, String callId, Duration window) {
		ResendProtection.Call call = ResendProtection.once(this.store.keys(queue), callId, window);
		try {
			this.store.runForListOnReplicas(script(false), this.store.keysOf(queue, call),
					QueueStore.argsOf(call, args(List.of(), false)), "no job of queue '" + queue + "'");
		}
		catch (ReplicationTimeoutException ex) {
			// the plain exception, as every other write throws; ReplicaWait's own only
			// carries the reply to the callers that count from it
			ReplicationTimeoutException plain = new ReplicationTimeoutException(ex.getRequired(), ex.getConfirmed(),
					ex.getMessage());
			plain.initCause(ex);
			throw plain;
		}
	}

	/**
	 * Thrown by an enqueue whose call was {@link #forestall forestalled}: nothing was
	 * enqueued, and nothing will be under that call.
	 */
	static final class Forestalled extends IllegalStateException {

		Forestalled(String message) {
			super(message);
		}

	}

	/**
	 * The script that enqueues a batch: {@code push.lua} when every job it takes is
	 * {@link EnqueueCommand#pushable() pushable}, which costs Redis less than
	 * {@code enqueue.lua}.
	 */
	@SuppressWarnings("rawtypes")
	private RedisScript<List> script(boolean push) {
		QueueScripts scripts = this.store.getScripts();
		return push ? scripts.push() : scripts.enqueue();
	}

	private static boolean pushes(List<EnqueueCommand> batch) {
		if (batch.isEmpty()) {
			// push.lua takes at least one job
			return false;
		}
		for (EnqueueCommand command : batch) {
			if (!command.pushable()) {
				return false;
			}
		}
		return true;
	}

	private static List<String> args(List<EnqueueCommand> commands, boolean push) {
		if (push) {
			List<String> args = new ArrayList<>(commands.size() * 2);
			for (EnqueueCommand command : commands) {
				args.add(command.id());
				args.add(command.body());
			}
			return args;
		}
		List<String> args = new ArrayList<>(1 + commands.size() * 5);
		args.add(Integer.toString(commands.size()));
		for (EnqueueCommand command : commands) {
			args.add(command.id());
			args.add(command.due().absolute() ? "a" : "d");
			args.add(Long.toString(command.due().millis()));
			args.add(command.generatedId() ? "n" : policy(command.policy(), command.uniqueness()));
			args.add(command.body());
		}
		return args;
	}

	private static String policy(DuplicatePolicy policy, Uniqueness uniqueness) {
		String pending = switch (policy) {
			case KEEP -> "k";
			case REPLACE -> "r";
			case REPLACE_PAYLOAD -> "p";
		};
		return (uniqueness == Uniqueness.UNTIL_STARTED) ? pending + "q" : pending;
	}

}
