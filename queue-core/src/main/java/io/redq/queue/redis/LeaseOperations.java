package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.redq.queue.core.ReplicationTimeoutException;
import io.redq.queue.script.QueueScripts;
import org.jspecify.annotations.Nullable;

/**
 * The calls of the listener containers on the leases of reserved jobs: start their runs,
 * extend them, acknowledge, fail and release the jobs. Each call takes the leases of
 * every shard of a queue and runs one script call per shard and batch.
 *
 * @author Redq team
 * @since 0.1.0
 * @see ListenerOperations#getLeaseOperations()
 */
public final class LeaseOperations {

	private final QueueStore store;

	private final QueueScripts scripts;

	/** Reports the chain steps that acknowledgements create. */
	private final EnqueueOperations enqueueOperations;

	private final ProgressOperations progressOperations;

	private int deadLetterMaxSize = ListenerOperations.DEFAULT_DEAD_LETTER_MAX_SIZE;

	private Duration deadLetterTimeToLive = ListenerOperations.DEFAULT_DEAD_LETTER_TIME_TO_LIVE;

	private int completedMaxSize;

	LeaseOperations(EnqueueOperations enqueueOperations, ProgressOperations progressOperations) {
		this.store = enqueueOperations.getStore();
		this.scripts = this.store.getScripts();
		this.enqueueOperations = enqueueOperations;
		this.progressOperations = progressOperations;
	}

	/**
	 * Set the number of dead jobs to keep per queue, as the reservations do.
	 * @see ListenerOperations#setDeadLetterMaxSize(int)
	 */
	void setDeadLetterMaxSize(int deadLetterMaxSize) {
		this.deadLetterMaxSize = deadLetterMaxSize;
	}

	/**
	 * Set how long dead jobs are kept, as the reservations do.
	 * @see ListenerOperations#setDeadLetterTimeToLive(Duration)
	 */
	void setDeadLetterTimeToLive(Duration deadLetterTimeToLive) {
		this.deadLetterTimeToLive = deadLetterTimeToLive;
	}

	/**
	 * Set how many ids of completed jobs to keep per queue, as the migrations do.
	 * @see ListenerOperations#setCompletedMaxSize(int)
	 */
	void setCompletedMaxSize(int completedMaxSize) {
		this.completedMaxSize = completedMaxSize;
	}

	/**
	 * Acknowledge completed jobs that returned no result.
	 * @param queue the queue
	 * @param leases the leases of the completed jobs
	 * @return the ids refused because another worker reserved their job since
	 * @see #ack(String, Collection, Map)
	 */
	public List<String> ack(String queue, Collection<Lease> leases) {
		return ack(queue, leases, Map.of());
	}

	/**
	 * Acknowledge completed jobs: they are gone from Redis, but for the results they
	 * returned, kept for the {@link ProgressOperations#setResultTimeToLive result time to
	 * live}; the callers waiting for them are told. A run whose lease ended (its worker
	 * stalled past it) is accepted as long as no worker reserved its job since: the job
	 * is taken out of the ready list, the delayed or dead set where it waits. Each
	 * {@value QueueStore#MAX_BATCH_SIZE} are acknowledged in one script call.
	 * @param queue the queue
	 * @param leases the leases of the completed jobs
	 * @param results the results by job id, in Redq's wire format, of the jobs that
	 * returned one (a refused job's result is not kept)
	 * @return the ids refused because another worker reserved their job since
	 * @throws ReplicationTimeoutException when fewer replicas than required (see
	 * {@link RedisJobQueueOperations#setReplicasToWaitFor(int, Duration)}) confirmed
	 * acknowledgements within the timeout: it names their jobs, which are acknowledged on
	 * the master
	 * @throws org.springframework.dao.DataAccessException when a call failed (thrown once
	 * the calls of the other shards and batches were made): its jobs may or may not be
	 * acknowledged, and acknowledging them again is harmless
	 */
	public List<String> ack(String queue, Collection<Lease> leases, Map<String, String> results) {
		return ack(queue, leases, results, Set.of());
	}

	/**
	 * Acknowledge completed jobs as {@link #ack(String, Collection, Map)} does, and
	 * delete the progress of those that {@link ProgressOperations#writeProgress wrote
	 * some} with their completion.
	 * @param queue the queue
	 * @param leases the leases of the completed jobs
	 * @param results the results by job id, in Redq's wire format
	 * @param withProgress the ids of the jobs that wrote progress
	 * @return the ids refused because another worker reserved their job since
	 */
	public List<String> ack(String queue, Collection<Lease> leases, Map<String, String> results,
			Set<String> withProgress) {
		List<String> refused = new ArrayList<>();
		List<String> unconfirmed = new ArrayList<>();
		ReplicationTimeoutException timeout = null;
		RuntimeException failure = null;
		for (Map.Entry<String, List<Lease>> shard : byShard(queue, leases).entrySet()) {
			// the other shards are acknowledged all the same: a shard whose master fails
			// over must not leave their jobs to run again
			try {
				refused.addAll(ackShard(queue, shard.getKey(), shard.getValue(), results, withProgress));
			}
			catch (ReplicationTimeoutException ex) {
				timeout = (timeout != null) ? timeout : ex;
				unconfirmed.addAll(ex.getJobIds());
			}
			catch (RuntimeException ex) {
				failure = suppressing(failure, ex);
			}
		}
		throwIfFailed(failure, timeout, unconfirmed);
		return refused;
	}

	/**
	 * Throw the first failure of the calls of an acknowledgement, with the later ones and
	 * the replicas' timeout (naming the unconfirmed jobs) suppressed, or the timeout
	 * alone.
	 */
	private static void throwIfFailed(@Nullable RuntimeException failure, @Nullable ReplicationTimeoutException timeout,
			List<String> unconfirmed) {
		if (failure != null) {
			throw (timeout != null) ? suppressing(failure, timeout.forJobs(unconfirmed)) : failure;
		}
		if (timeout != null) {
			throw timeout.forJobs(unconfirmed);
		}
	}

	/**
	 * Return the first failure of a call, with a later one added to it.
	 */
	private static RuntimeException suppressing(@Nullable RuntimeException first, RuntimeException later) {
		if (first == null) {
			return later;
		}
		first.addSuppressed(later);
		return first;
	}

	private List<String> ackShard(String queue, String shard, List<Lease> all, Map<String, String> results,
			Set<String> withProgress) {
		QueueKeys queueKeys = this.store.keys(shard);
		List<String> refused = new ArrayList<>();
		List<String> unconfirmed = new ArrayList<>();
		ReplicationTimeoutException timeout = null;
		RuntimeException failure = null;
		for (int from = 0; from < all.size(); from += QueueStore.MAX_BATCH_SIZE) {
			List<Lease> batch = all.subList(from, Math.min(all.size(), from + QueueStore.MAX_BATCH_SIZE));
			List<String> keys = queueKeys.all();
			// a result to keep, or '' to delete a progress hash
			List<String> writes = new ArrayList<>();
			for (Lease lease : batch) {
				String result = results.get(lease.id());
				if (result != null) {
					keys = write(keys, queueKeys.result(lease.id()), writes, lease.id(), result);
				}
				if (withProgress.contains(lease.id())) {
					keys = write(keys, queueKeys.progress(lease.id()), writes, lease.id(), "");
				}
			}
			List<String> args = new ArrayList<>();
			args.add(Integer.toString(this.completedMaxSize));
			args.add(Integer.toString(writes.size() / 2));
			args.add(QueueStore.millis(this.progressOperations.getResultTimeToLive()));
			args.addAll(writes);
			args.addAll(leaseArgs(batch));
			try {
				List<?> reply = this.store.runForListOnReplicas(this.scripts.ack(), keys, args,
						"the acknowledgement of " + batch.size() + " job(s) of queue '" + shard + "'");
				refused.addAll(QueueStore.strings(this.enqueueOperations.stepsEntered(queue, reply)));
			}
			catch (ReplicationTimeoutException ex) {
				if (ex instanceof ReplicaWait.Unconfirmed unconfirmedAck) {
					// the script ran and created the next chain steps; only replicas lag
					this.enqueueOperations.stepsEntered(queue, unconfirmedAck.getReply());
				}
				// the batches after it are acknowledged all the same
				timeout = (timeout != null) ? timeout : ex;
				batch.forEach((lease) -> unconfirmed.add(lease.id()));
			}
			catch (RuntimeException ex) {
				failure = suppressing(failure, ex);
			}
		}
		throwIfFailed(failure, timeout, unconfirmed);
		return refused;
	}

	/**
	 * Add a key that an acknowledgement writes after the queue's, and what it writes
	 * there.
	 * @return the keys, copied before the first key is added
	 */
	private static List<String> write(List<String> keys, String key, List<String> writes, String id, String value) {
		List<String> added = writes.isEmpty() ? new ArrayList<>(keys) : keys;
		added.add(key);
		writes.add(id);
		writes.add(value);
		return added;
	}

	/**
	 * Record a failed attempt: the job is retried after {@code retryDelay}, or dies when
	 * it is {@code null}.
	 * @param queue the queue
	 * @param lease the lease of the failed job
	 * @param error what went wrong, kept with the job
	 * @param retryDelay the delay before the next attempt, or {@code null} to move the
	 * job to dead
	 * @return {@code false} when the lease is no longer held by that token (nothing was
	 * changed)
	 */
	public boolean fail(String queue, Lease lease, String error, @Nullable Duration retryDelay) {
		return fail(queue, lease, error, null, retryDelay);
	}

	/**
	 * Record a failed attempt with the stack trace of its error, kept with the job (and
	 * shown by the inspector) until it fails again or is gone: the job is retried after
	 * {@code retryDelay}, or dies when it is {@code null}.
	 * @param queue the queue
	 * @param lease the lease of the failed job
	 * @param error what went wrong, kept with the job
	 * @param stackTrace the error's stack trace, bounded by the caller, or {@code null}
	 * for none (a trace of an earlier failure is removed)
	 * @param retryDelay the delay before the next attempt, or {@code null} to move the
	 * job to dead
	 * @return {@code false} when the lease is no longer held by that token (nothing was
	 * changed)
	 */
	public boolean fail(String queue, Lease lease, String error, @Nullable String stackTrace,
			@Nullable Duration retryDelay) {
		Long result = this.store.runForLong(this.scripts.fail(), ShardNames.shardOfToken(queue, lease.token()),
				lease.id(), ShardNames.inShard(lease).token(), error,
				(retryDelay != null) ? QueueStore.millis(retryDelay) : "-1", Integer.toString(this.deadLetterMaxSize),
				QueueStore.millis(this.deadLetterTimeToLive), (stackTrace != null) ? stackTrace : "");
		return result != null && result == 1L;
	}

	/**
	 * Give runs about to start the full lease from now (a longer lease is kept). Their
	 * start is not confirmed yet: only a later {@link #extend} of a run whose start
	 * succeeded confirms it, so that a start whose reply was lost (the job never ran)
	 * expires as a stall, without using an attempt.
	 * @param queue the queue
	 * @param starting the leases of the runs about to start
	 * @param lease the lease of a run
	 * @return the tokens of the leases no longer held: those jobs must not start
	 */
	public List<String> start(String queue, Collection<Lease> starting, Duration lease) {
		List<String> lost = new ArrayList<>();
		for (Map.Entry<String, List<Lease>> shard : byShard(queue, starting).entrySet()) {
			List<String> leases = new ArrayList<>(shard.getValue().size() * 3);
			addLeaseArgs(leases, shard.getValue(), "s");
			lost.addAll(extendShard(shard.getKey(), leases, lease, lease));
		}
		return lost;
	}

	/**
	 * Extend leases from now; a longer lease is kept. The runs that started are recorded
	 * as such, so that the lease of a job that never started can expire without using an
	 * attempt (see {@link ListenerOperations#migrate(String, int)}).
	 * @param queue the queue
	 * @param started the leases of runs whose {@link #start} succeeded
	 * @param waiting the leases of jobs reserved ahead that wait for a worker
	 * @param lease the new lease of the started runs
	 * @param waitingLease the new lease of the waiting jobs Each
	 * {@value QueueStore#MAX_BATCH_SIZE} leases are extended in one script call, so that
	 * no number of jobs held at once is too many.
	 * @return the tokens of the leases no longer held (a job's id alone cannot tell a
	 * stalled run from a new run of the same job)
	 */
	public List<String> extend(String queue, Collection<Lease> started, Collection<Lease> waiting, Duration lease,
			Duration waitingLease) {
		Map<String, List<Lease>> startedByShard = byShard(queue, started);
		Map<String, List<Lease>> waitingByShard = byShard(queue, waiting);
		Set<String> shards = new LinkedHashSet<>(startedByShard.keySet());
		shards.addAll(waitingByShard.keySet());
		List<String> lost = new ArrayList<>();
		for (String shard : shards) {
			List<String> leases = new ArrayList<>((started.size() + waiting.size()) * 3);
			addLeaseArgs(leases, startedByShard.getOrDefault(shard, List.of()), "1");
			addLeaseArgs(leases, waitingByShard.getOrDefault(shard, List.of()), "0");
			lost.addAll(extendShard(shard, leases, lease, waitingLease));
		}
		return lost;
	}

	/**
	 * Extend leases of one shard.
	 * @return the tokens of the leases no longer held, as the callers know them
	 */
	private List<String> extendShard(String shard, List<String> leases, Duration lease, Duration waitingLease) {
		List<String> lost = new ArrayList<>();
		int batch = QueueStore.MAX_BATCH_SIZE * 3;
		for (int from = 0; from < leases.size(); from += batch) {
			List<String> args = new ArrayList<>(2 + batch);
			args.add(QueueStore.millis(lease));
			args.add(QueueStore.millis(waitingLease));
			args.addAll(leases.subList(from, Math.min(leases.size(), from + batch)));
			for (String token : QueueStore.strings(this.store.runForList(this.scripts.extend(), shard, args))) {
				lost.add(ShardNames.shardToken(shard, token));
			}
		}
		return lost;
	}

	/**
	 * Hand reserved jobs back so that another worker gets them at once; a job that ran
	 * and used its last attempt dies instead. Each {@value QueueStore#MAX_BATCH_SIZE}
	 * leases are handed back in one script call.
	 * @param queue the queue
	 * @param leases the leases to give up
	 * @param undoAttempt whether to give the attempt back (the jobs never started)
	 * @return how many jobs were handed back
	 */
	public long release(String queue, Collection<Lease> leases, boolean undoAttempt) {
		long released = 0;
		for (Map.Entry<String, List<Lease>> shard : byShard(queue, leases).entrySet()) {
			released += releaseShard(shard.getKey(), shard.getValue(), undoAttempt);
		}
		return released;
	}

	private long releaseShard(String shard, List<Lease> all, boolean undoAttempt) {
		long released = 0;
		for (int from = 0; from < all.size(); from += QueueStore.MAX_BATCH_SIZE) {
			List<String> args = new ArrayList<>(2 + QueueStore.MAX_BATCH_SIZE * 3);
			args.add(Integer.toString(this.deadLetterMaxSize));
			args.add(QueueStore.millis(this.deadLetterTimeToLive));
			addLeaseArgs(args, all.subList(from, Math.min(all.size(), from + QueueStore.MAX_BATCH_SIZE)),
					undoAttempt ? "1" : "0");
			Long count = this.store.runForLong(this.scripts.release(), shard, args.toArray(new String[0]));
			released += (count != null) ? count : 0;
		}
		return released;
	}

	/**
	 * Return leases by the shard that gave them, as its scripts know them.
	 */
	private Map<String, List<Lease>> byShard(String queue, Collection<Lease> leases) {
		if (this.store.queueShards().shards(queue).size() == 1) {
			return Map.of(queue, List.copyOf(leases));
		}
		Map<String, List<Lease>> byShard = new LinkedHashMap<>();
		for (Lease lease : leases) {
			byShard.computeIfAbsent(ShardNames.shardOfToken(queue, lease.token()), (shard) -> new ArrayList<>())
				.add(ShardNames.inShard(lease));
		}
		return byShard;
	}

	private static void addLeaseArgs(List<String> args, Collection<Lease> leases, String flag) {
		for (Lease lease : leases) {
			args.add(lease.id());
			args.add(lease.token());
			args.add(flag);
		}
	}

	private static List<String> leaseArgs(Collection<Lease> leases) {
		List<String> args = new ArrayList<>(leases.size() * 2);
		for (Lease lease : leases) {
			args.add(lease.id());
			args.add(lease.token());
		}
		return args;
	}

}
