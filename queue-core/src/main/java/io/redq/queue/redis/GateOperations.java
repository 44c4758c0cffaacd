package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.redq.queue.core.RateLimit;
import org.jspecify.annotations.Nullable;

/**
 * The calls of the listener containers on a job's gates (its exclusive key, running
 * limits and rate limit): pass them, hold them while the job runs, and leave them,
 * handing the place over to the first job parked behind them.
 *
 * @author Redq team
 * @since 0.1.0
 * @see ListenerOperations#getGateOperations()
 */
public final class GateOperations {

	/**
	 * What {@link #admit} returns for a job parked behind a gate: it waits, at no cost,
	 * until a place is freed for it.
	 */
	public static final long PARKED = -2;

	private final QueueStore store;

	/** Reports the chain steps that acknowledgements on leave create. */
	private final EnqueueOperations enqueueOperations;

	private volatile int completedMaxSize;

	GateOperations(EnqueueOperations enqueueOperations) {
		this.store = enqueueOperations.getStore();
		this.enqueueOperations = enqueueOperations;
	}

	/**
	 * Set how many ids of completed jobs to keep per queue, as the acknowledgements do.
	 * @see ListenerOperations#setCompletedMaxSize(int)
	 */
	void setCompletedMaxSize(int completedMaxSize) {
		this.completedMaxSize = completedMaxSize;
	}

	/**
	 * Let a reserved job pass its gates, or defer it: back to delayed with its attempt
	 * given back. A job stopped by a taken key or a full running set is parked in that
	 * gate's line, at no cost, until a run leaves the gate or a holder's lease expires,
	 * which wakes the first in line. A job deferred by the rate limit is given the next
	 * place the window has room for, behind the jobs deferred before it.
	 * @param queue the queue
	 * @param lease the job's lease
	 * @param gates the job's gates
	 * @param leaseTime how long the gates are held unless renewed
	 * @return 0 when admitted, -1 when the lease is no longer held by that token,
	 * {@link #PARKED} when parked, else the wait in ms
	 */
	public long admit(String queue, Lease lease, Gates gates, Duration leaseTime) {
		RateLimit rate = gates.rateLimit();
		Long result = this.store.getTemplate()
			.execute(this.store.getScripts().admit(), gateKeys(queue, lease, gates), lease.id(),
					ShardNames.inShard(lease).token(), QueueStore.millis(leaseTime),
					(gates.exclusiveKey() != null) ? "1" : "0", Integer.toString(gates.jobMaxRunning()),
					Integer.toString(gates.queueMaxRunning()), (rate != null) ? Integer.toString(rate.permits()) : "0",
					(rate != null) ? QueueStore.millis(rate.window()) : "0", Integer.toString(gates.groupMaxRunning()));
		return (result != null) ? result : -1;
	}

	/**
	 * Renew the gates a running job holds to {@code leaseTime} from now; a gate held
	 * longer (the job extended its lease) keeps its longer hold.
	 * @param queue the queue
	 * @param lease the lease of the run that passed the gates
	 * @param gates the job's gates
	 * @param leaseTime the new lease of the gates
	 */
	public void holdGates(String queue, Lease lease, Gates gates, Duration leaseTime) {
		this.store.getTemplate()
			.execute(this.store.getScripts().hold(), gateKeys(queue, lease, gates), lease.id(),
					ShardNames.inShard(lease).token(), QueueStore.millis(leaseTime), "1");
	}

	/**
	 * Leave the gates a finished job held, so that the next job may pass, and wake the
	 * first job parked in the line of each gate it freed. The first job woken is reserved
	 * for the caller with the given lease (unless that is zero or the queue is paused),
	 * who hands it to a worker, which runs it: the place goes on without a wake-up and a
	 * reservation. A job whose gates are these (the same job and group, with no exclusive
	 * key or rate limit) is let through them in the same call while they have room;
	 * another is let through by the worker ({@link #admit}). Up to {@code runSize} more
	 * jobs parked next in its line with these gates join its run: reserved for the caller
	 * too, they run one after another under the place it took, which the last of them
	 * leaves, naming the run that took it ({@link HandOver#job()}).
	 * @param queue the queue
	 * @param lease the lease of the run that took the place the gates hold: the job's
	 * own, or the first job's of its run
	 * @param gates the job's gates
	 * @param handOverLease the lease to reserve the first job woken with, or
	 * {@link Duration#ZERO} to make every job woken ready
	 * @param runSize how many more jobs may join the run of the job handed over
	 * @return the job reserved for the caller, or {@code null}
	 */
	public @Nullable HandOver leaveGates(String queue, Lease lease, Gates gates, Duration handOverLease, int runSize) {
		return handOver(queue, lease, leave(queue, lease, gates, handOverLease, false, runSize), 0);
	}

	/**
	 * Return whether {@link #completeAndLeaveGates} may acknowledge a job: not while
	 * acknowledgements wait for replicas, whose timeout would lose the job handed over.
	 * @return whether a completion and its leave may go in one call
	 */
	public boolean completesOnLeave() {
		return !this.store.getReplicaWait().isEnabled();
	}

	/**
	 * Acknowledge a completed job that returned nothing and wrote no progress, and leave
	 * its gates, in one call: as {@link LeaseOperations#ack(String, Collection)} and then
	 * {@link #leaveGates} do, so that a drain behind a limit costs one round trip per
	 * job. Only while {@link #completesOnLeave()}.
	 * @param queue the queue
	 * @param lease the lease of the completed run, which passed the gates
	 * @param gates the job's gates
	 * @param handOverLease the lease to reserve the first job woken with, or
	 * {@link Duration#ZERO} to make every job woken ready
	 * @param runSize how many more jobs may join the run of the job handed over
	 * @return whether the acknowledgement was refused, and the job reserved for the
	 * caller
	 */
	public Completion completeAndLeaveGates(String queue, Lease lease, Gates gates, Duration handOverLease,
			int runSize) {
		List<?> result = this.enqueueOperations.stepsEntered(queue,
				leave(queue, lease, gates, handOverLease, true, runSize));
		boolean refused = !result.isEmpty() && ((Number) result.get(0)).intValue() == 1;
		return new Completion(refused, handOver(queue, lease, result, 1));
	}

	private List<?> leave(String queue, Lease lease, Gates gates, Duration handOverLease, boolean acknowledge,
			int runSize) {
		List<String> args = new ArrayList<>(List.of(lease.id(), ShardNames.inShard(lease).token(),
				QueueStore.millis(handOverLease), "0", sameGates(gates), Integer.toString(gates.jobMaxRunning()),
				Integer.toString(gates.queueMaxRunning()), Integer.toString(gates.groupMaxRunning()),
				acknowledge ? Integer.toString(this.completedMaxSize) : "", Integer.toString(runSize)));
		List<?> result = this.store.getTemplate()
			.execute(this.store.getScripts().hold(), gateKeys(queue, lease, gates), args.toArray());
		return (result != null) ? result : List.of();
	}

	/**
	 * Read the job a leave handed over from its reply, where its fields begin at
	 * {@code from}.
	 */
	private static @Nullable HandOver handOver(String queue, Lease lease, List<?> result, int from) {
		if (result.size() <= from) {
			return null;
		}
		String shard = ShardNames.shardOfToken(queue, lease.token());
		List<ReservedJob> run = new ArrayList<>();
		for (int i = from + 5; i + 3 < result.size(); i += 4) {
			run.add(reservedJob(shard, result, i));
		}
		return new HandOver(reservedJob(shard, result, from), ((Number) result.get(from + 4)).intValue() == 1, run);
	}

	private static ReservedJob reservedJob(String shard, List<?> result, int from) {
		return new ReservedJob((String) result.get(from), (String) result.get(from + 1),
				((Number) result.get(from + 2)).intValue(),
				ShardNames.shardToken(shard, (String) result.get(from + 3)));
	}

	/**
	 * Return how the envelope of a job with the given gates goes on after its times and
	 * level, as {@link JobEnvelope} writes it: its group and job name, which give it the
	 * same gates; empty when the job name does not, since the gates have an exclusive key
	 * (of the payload) or a rate limit (whose places are given in {@link #admit}).
	 */
	private static String sameGates(Gates gates) {
		if (gates.exclusiveKey() != null || gates.rateLimit() != null) {
			return "";
		}
		String job = "\"job\":" + WireFormat.jsonMapper().writeValueAsString(gates.job()) + ",";
		return (gates.group() != null)
				? "\"group\":" + WireFormat.jsonMapper().writeValueAsString(gates.group()) + "," + job : job;
	}

	/** Return the keys of the gates of a job, in its shard: gates are per shard. */
	private List<String> gateKeys(String queue, Lease lease, Gates gates) {
		QueueKeys keys = this.store.keys(ShardNames.shardOfToken(queue, lease.token()));
		List<String> all = new ArrayList<>(keys.all());
		all.addAll(keys.gates(gates));
		return all;
	}

	/**
	 * The first job woken by a run that left its gates, reserved for the caller.
	 *
	 * @param job the job
	 * @param admitted whether it was let through its gates (the leaver's) in the same
	 * call, so that it runs without {@link #admit}
	 * @param run the jobs that joined its run, in the order they run after it, under the
	 * place it took
	 */
	public record HandOver(ReservedJob job, boolean admitted, List<ReservedJob> run) {

	}

	/**
	 * What {@link #completeAndLeaveGates} did.
	 *
	 * @param refused whether the acknowledgement was refused: another worker reserved the
	 * job since this run's lease expired
	 * @param next the first job woken, reserved for the caller, or {@code null}
	 */
	public record Completion(boolean refused, @Nullable HandOver next) {

	}

}
