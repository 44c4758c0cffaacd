package io.redq.queue.redis.tester;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.Uniqueness;
import io.redq.queue.redis.BatchKeys;
import io.redq.queue.redis.BatchOperations;
import io.redq.queue.redis.ChainOperations;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.LostReplies;
import io.redq.queue.redis.PreparedCommand;
import io.redq.queue.redis.QueueStore;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.redis.StalledMover;
import io.redq.queue.redis.tester.ScriptTester.Invariant;
import io.redq.queue.redis.tester.ScriptTester.Violation;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The core of the testers of the workflow scripts ({@code batch.lua}, {@code chain.lua}
 * and the queue scripts that hand their members' finishes over): a random interleaving on
 * a real Redis, chosen by a seeded {@link Random} on one thread so that a seed reproduces
 * its run, of the steps every workflow has (members reserved, acknowledged, again when
 * Lettuce re-sends the call, and late after their lease expired, failed to death, revived
 * from the dead set, leases expired and migrated, hand-overs applied, again when a
 * migrator died before it removed them, and callbacks, next steps and nested workflows'
 * ends delivered, again when it died before it recorded the delivery, workflows
 * cancelled, a chain's cancel again when its first reply was lost, member queues purged
 * and swept, and movers that stall between the pieces of what they deliver, cancels
 * overtaking them) and of the steps a tester adds, with the models of its batches and
 * chains checked after every step: nothing of a workflow starts after its cancel
 * returned. At the end everything runs to its end, and each workflow must have ended with
 * its callbacks enqueued exactly once as its outcome calls for, every nested workflow's
 * end counted by its parent, and every key of it expiring.
 * <p>
 * The model of a member's first finish is what the tester sees after each step: a job
 * dead in its queue, gone (acknowledged) once seen, or gone in a cancel or a purge that
 * the tester made; a nested batch or chain as its end, as its parent counts it. A
 * callback's enqueues are counted by its first-attempt reservations, and a callback that
 * ran must not come back.
 *
 * @author Redq team
 */
abstract class WorkflowScriptTester {

	static final String CALLBACKS = "callbacks";

	static final Duration WINDOW = Duration.ofHours(1);

	private static final Duration LONG_LEASE = Duration.ofSeconds(60);

	private static final int TRACE_LENGTH = 40;

	private static final Set<String> ENDED = Set.of("succeeded", "failed", "cancelled");

	/**
	 * The field under which a nested workflow keeps its end until it is handed over to
	 * its parent.
	 */
	private static final String PARENT = "parent";

	final Random random;

	/**
	 * The draws of re-sent cancels, apart from the run's: a re-sent cancel leaves Redis
	 * as one cancel does, so that a run takes the steps it took without the fault, and
	 * the bugs of mutated scripts that its seed finds stay found.
	 */
	private final Random resends;

	final RedisJobQueueOperations operations;

	/** What hands over the members' finishes, as a migrator does. */
	final BatchOperations handOvers;

	/** What cancels chains. */
	private final ChainOperations chains;

	/**
	 * What sends workflows and adds members to batches, as an application does, with a
	 * job of each member queue named after it.
	 */
	final RedisJobDispatcher dispatcher;

	final ListenerOperations listeners;

	final StringRedisTemplate redis;

	final QueueStore store;

	/** The batches and chains, by id. */
	final Map<String, Workflow> workflows = new LinkedHashMap<>();

	private final int steps;

	private final Set<Fault> faults;

	private final List<String> queues;

	private final List<Workflow> creationsToApplyAgain = new ArrayList<>();

	/** The jobs that workers hold, of any queue. */
	private final List<Held> held = new ArrayList<>();

	/** The first-attempt reservations of each callback: one per enqueue. */
	private final Map<String, Integer> callbackEnqueues = new HashMap<>();

	/** The callbacks whose run was acknowledged. */
	private final Set<String> callbacksRun = new HashSet<>();

	/** The movers that stalled before they delivered what they read. */
	private final List<StalledMover> stalled = new ArrayList<>();

	/** The dead members an operator revived: they run again as plain jobs. */
	private final Set<String> revived = new HashSet<>();

	private final Deque<String> trace = new ArrayDeque<>();

	private int step;

	/** Whether the run is finishing: workers then hold their jobs for long. */
	private boolean finishing;

	/**
	 * Create a tester.
	 * @param operations the queue operations
	 * @param handOvers what hands over the members' finishes, with the batch and chain
	 * scripts under test
	 * @param chains what cancels chains, with the chain script under test
	 * @param queues the queues of the members
	 * @param steps how many steps a run takes
	 * @param faults the faults to inject
	 * @param seed the seed of the run
	 */
	WorkflowScriptTester(RedisJobQueueOperations operations, BatchOperations handOvers, ChainOperations chains,
			List<String> queues, int steps, Set<Fault> faults, long seed) {
		this.operations = operations;
		this.handOvers = handOvers;
		this.chains = chains;
		this.queues = queues;
		this.steps = steps;
		this.faults = faults;
		this.random = new Random(seed);
		this.resends = new Random(~seed);
		this.store = operations.getStore();
		this.listeners = operations.getListenerOperations();
		this.redis = this.store.getTemplate();
		this.dispatcher = new RedisJobDispatcher(operations, new MemberJobs(queues), JsonMapper.shared());
	}

	/**
	 * Run the steps, checking the invariants after each, then run everything to its end
	 * and check that each workflow ended and its callbacks were enqueued as it calls for.
	 * @return the first invariant violated, or {@code null}
	 */
	@Nullable Violation run() {
		try {
			for (this.step = 1; this.step <= this.steps; this.step++) {
				while (!nextStep()) {
					// the chosen step had nothing to act on: choose again
				}
				observe();
				checkState();
			}
			finishAll();
			return null;
		}
		catch (ViolationException ex) {
			return new Violation(ex.invariant, this.step, ex.getMessage(), List.copyOf(this.trace));
		}
		finally {
			this.dispatcher.stop();
		}
	}

	/**
	 * Take a step chosen at random.
	 * @return whether it acted, or had nothing to act on
	 */
	abstract boolean nextStep();

	final String anyQueue() {
		return this.queues.get(this.random.nextInt(this.queues.size()));
	}

	final boolean enabled(Fault fault, double probability) {
		return this.faults.contains(fault) && this.random.nextDouble() < probability;
	}

	// producers

	/**
	 * Record a workflow a relay created, which a relay that dies before it deletes the
	 * row creates again later.
	 * @return what the fault did, for the trace
	 */
	final String created(Workflow workflow) {
		this.workflows.put(workflow.id, workflow);
		if (enabled(Fault.BATCH_CREATION_APPLIED_AGAIN, 0.4)) {
			this.creationsToApplyAgain.add(workflow);
			return ", its relay dies before it deletes the row";
		}
		return "";
	}

	/**
	 * Return a callback of a workflow, under the id {@code <workflow id>:<name>}, in the
	 * queue of the callbacks.
	 */
	static PreparedCommand callback(String workflowId, String name) {
		return new PreparedCommand(CALLBACKS,
				new EnqueueCommand(workflowId + ":" + name, Due.NOW, DuplicatePolicy.KEEP, Uniqueness.UNTIL_COMPLETED,
						"\"job\":\"" + name + "\",\"maxAttempts\":3,\"payload\":\"" + workflowId + "\"}"));
	}

	final boolean createAgain() {
		if (this.creationsToApplyAgain.isEmpty()) {
			return false;
		}
		Workflow workflow = this.creationsToApplyAgain.remove(this.random.nextInt(this.creationsToApplyAgain.size()));
		workflow.createAgain();
		trace("another relay creates " + workflow.id + " again");
		return true;
	}

	// workers

	final boolean reserve(String queue) {
		Duration lease = (this.finishing || queue.equals(CALLBACKS) || this.random.nextInt(10) < 6) ? LONG_LEASE
				: Duration.ofMillis(1 + this.random.nextInt(5));
		List<ReservedJob> jobs = this.listeners.reserve(queue, 1 + this.random.nextInt(3), lease).jobs();
		for (ReservedJob job : jobs) {
			this.held.add(new Held(queue, job));
			if (queue.equals(CALLBACKS) && job.attempt() == 1) {
				this.callbackEnqueues.merge(job.id(), 1, Integer::sum);
			}
		}
		trace("a worker reserves " + jobs.stream().map((job) -> job.id() + "#" + job.attempt()).toList() + " of "
				+ queue + " for " + lease.toMillis() + " ms");
		return !jobs.isEmpty();
	}

	/** A worker acknowledges a job it holds: in time, or late after its lease expired. */
	final boolean ack() {
		if (this.held.isEmpty()) {
			return false;
		}
		Held job = this.held.remove(this.random.nextInt(this.held.size()));
		boolean accepted = this.listeners.getLeaseOperations().ack(job.queue, List.of(job.job.lease())).isEmpty();
		String resent = "";
		if (enabled(Fault.ACK_RESENT, 0.2)) {
			resent = ", re-sent: "
					+ this.listeners.getLeaseOperations().ack(job.queue, List.of(job.job.lease())).isEmpty();
		}
		if (accepted && job.queue.equals(CALLBACKS)) {
			this.callbacksRun.add(job.job.id());
		}
		trace("a worker acknowledges " + job + ": " + (accepted ? "accepted" : "refused") + resent);
		return true;
	}

	final boolean fail() {
		Held job = anyHeldMember();
		if (job == null) {
			return false;
		}
		this.held.remove(job);
		boolean failed = this.listeners.getLeaseOperations().fail(job.queue, job.job.lease(), "boom", Duration.ZERO);
		trace("a worker fails " + job + ": " + failed);
		return true;
	}

	/**
	 * Return a member that a worker holds, or {@code null}.
	 */
	final @Nullable Held anyHeldMember() {
		List<Held> members = this.held.stream().filter((job) -> !job.queue.equals(CALLBACKS)).toList();
		return members.isEmpty() ? null : members.get(this.random.nextInt(members.size()));
	}

	// operators and migrators

	final boolean revive() {
		String queue = anyQueue();
		List<String> dead = new ArrayList<>(this.redis.opsForZSet().range(this.store.keys(queue).dead(), 0, -1));
		if (dead.isEmpty()) {
			return false;
		}
		String id = dead.get(this.random.nextInt(dead.size()));
		observe();
		long revived = this.operations.retryDead(queue, List.of(id));
		if (revived > 0) {
			this.revived.add(id);
		}
		trace("an operator revives dead " + id + " of " + queue + ": " + revived);
		return true;
	}

	/**
	 * An operator cancels a workflow, nested or not: the jobs that were waiting or
	 * running before and are gone after were cancelled.
	 */
	final boolean cancel() {
		List<Workflow> started = this.workflows.values().stream().filter((workflow) -> workflow.started).toList();
		if (started.isEmpty()) {
			return false;
		}
		cancel(started.get(this.random.nextInt(started.size())));
		return true;
	}

	private void cancel(Workflow workflow) {
		boolean[] cancelled = new boolean[1];
		List<?>[] lost = new List<?>[1];
		finishLiveJobs('c', null, () -> {
			if (workflow instanceof Chain && this.faults.contains(Fault.CANCEL_RESENT) && this.resends.nextBoolean()) {
				// the operator's call returns with the re-sent call's reply: it cancelled
				// the chain when its first run did
				lost[0] = LostReplies.cancelChain(this.chains, workflow.id);
				cancelled[0] = !lost[0].isEmpty() && !Long.valueOf(0).equals(lost[0].get(0));
			}
			cancelled[0] |= workflow.cancel();
			return true;
		});
		if (cancelled[0]) {
			workflow.close();
		}
		// a batch's cancel cancels the batches and chains it holds too
		this.workflows.values().forEach(Workflow::noteCancel);
		trace("an operator cancels " + workflow.id + ((lost[0] != null) ? " (reply " + lost[0] + " lost, re-sent)" : "")
				+ ": " + cancelled[0]);
	}

	/**
	 * An operator purges a member queue: its jobs are gone, and the migrator's sweep then
	 * hands them over as purged.
	 */
	final boolean purge() {
		String queue = anyQueue();
		finishLiveJobs('p', queue, () -> {
			this.operations.purge(queue);
			return true;
		});
		trace("an operator purges " + queue);
		return true;
	}

	/**
	 * Take a step, then record the given first finish for each job, of the given queue or
	 * of any, that waited or ran before it and is gone after it.
	 */
	private void finishLiveJobs(char outcome, @Nullable String queue, BooleanSupplier action) {
		observe();
		List<Member> live = new ArrayList<>();
		for (Workflow workflow : this.workflows.values()) {
			for (Member member : workflow.members) {
				if (!member.nested() && (queue == null || queue.equals(member.queue)) && member.first == null
						&& live(member)) {
					live.add(member);
				}
			}
		}
		action.getAsBoolean();
		for (Member member : live) {
			if (!live(member)) {
				member.first = outcome;
			}
		}
	}

	final void migrate(String queue) {
		this.listeners.migrate(queue);
		trace("a migrator moves the expired leases of " + queue);
	}

	final boolean handOver(String queue) {
		if (!this.stalled.isEmpty() && this.random.nextBoolean()) {
			return goOn();
		}
		if (enabled(Fault.MOVER_STALLS, 0.3)) {
			StalledMover mover = StalledMover.applyHandOvers(this.store, this.handOvers, queue);
			if (mover != null) {
				this.stalled.add(mover);
				trace("a migrator applies the hand-overs of " + queue + ", then stalls before it delivers");
				return true;
			}
		}
		String handover = this.store.keys(queue).handover();
		Set<String> entries = this.redis.opsForZSet().range(handover, 0, -1);
		boolean keepDeliveries = enabled(Fault.DELIVERY_NOT_RECORDED, 0.3);
		Map<Workflow, List<Object>> before = new HashMap<>();
		if (keepDeliveries) {
			for (Workflow workflow : this.workflows.values()) {
				before.put(workflow,
						this.redis.<String, Object>opsForHash().multiGet(workflow.meta(), workflow.deliveryFields()));
			}
		}
		int applied = this.handOvers.handOver(queue);
		String faults = "";
		if (applied > 0 && enabled(Fault.HAND_OVER_APPLIED_AGAIN, 0.3)) {
			entries.forEach((entry) -> this.redis.opsForZSet().add(handover, entry, 0));
			faults += ", dies before it removes them";
		}
		if (keepDeliveries) {
			observe();
			before.forEach((workflow, values) -> {
				List<String> fields = workflow.deliveryFields();
				List<Object> after = this.redis.<String, Object>opsForHash().multiGet(workflow.meta(), fields);
				for (int i = 0; i < fields.size(); i++) {
					// delivered, not deleted by the workflow's end as its outcome calls
					// for
					if (values.get(i) != null && after.get(i) == null && workflow.delivered(fields.get(i))) {
						this.redis.opsForHash().put(workflow.meta(), fields.get(i), values.get(i));
					}
				}
			});
			faults += ", dies before it records its deliveries";
		}
		trace("a migrator hands over " + applied + " finish(es) of " + queue + faults);
		return true;
	}

	/**
	 * A stalled mover goes on with the next piece of what it delivers.
	 */
	private boolean goOn() {
		StalledMover mover = this.stalled.get(this.random.nextInt(this.stalled.size()));
		if (!mover.chains().isEmpty() && this.random.nextInt(3) == 0) {
			// the race: an operator cancels a chain whose next step the mover holds
			List<String> chains = List.copyOf(mover.chains());
			cancel(this.workflows.get(chains.get(this.random.nextInt(chains.size()))));
			return true;
		}
		String done = mover.goOn();
		if (!mover.stalled()) {
			this.stalled.remove(mover);
		}
		trace("a stalled migrator goes on: it " + done);
		return true;
	}

	/**
	 * Run everything to its end, until nothing waits, then check that each workflow ended
	 * and its callbacks were enqueued exactly once as its outcome calls for.
	 */
	private void finishAll() {
		this.step = this.steps + 1;
		this.finishing = true;
		trace("every member and callback is run to its end");
		while (!this.stalled.isEmpty()) {
			goOn();
			observe();
			checkState();
		}
		for (int round = 0; round < 1000 && !quiet(); round++) {
			for (Held job : List.copyOf(this.held)) {
				this.held.remove(job);
				if (this.listeners.getLeaseOperations().ack(job.queue, List.of(job.job.lease())).isEmpty()
						&& job.queue.equals(CALLBACKS)) {
					this.callbacksRun.add(job.job.id());
				}
			}
			for (String queue : this.queues) {
				this.listeners.migrate(queue);
				while (reserve(queue)) {
					// acknowledged in the next round
				}
				this.handOvers.handOver(queue);
			}
			while (reserve(CALLBACKS)) {
				// acknowledged in the next round
			}
			observe();
			checkState();
		}
		this.workflows.values().forEach(Workflow::checkAtEnd);
		for (Workflow workflow : this.workflows.values()) {
			workflow.checkKeysExpire();
		}
	}

	/**
	 * Whether nothing is left to run or hand over, so that no workflow can move on.
	 */
	private boolean quiet() {
		return this.held.isEmpty() && this.queues.stream().allMatch(this::idle) && idle(CALLBACKS);
	}

	/**
	 * Whether a queue has no job that waits or runs, and no finish to hand over.
	 */
	private boolean idle(String queue) {
		return this.redis.opsForZSet().size(this.store.keys(queue).handover()) == 0 && this.redis.opsForHash()
			.size(this.store.keys(queue).jobs())
			.equals(this.redis.opsForZSet().size(this.store.keys(queue).dead()));
	}

	// the model and the invariants

	private void observe() {
		this.workflows.values().forEach(Workflow::observe);
	}

	private void checkState() {
		this.workflows.values().forEach(Workflow::checkAfterStep);
	}

	/**
	 * Whether a member waits or runs: a job in its queue (dead ones too), a nested
	 * workflow not ended.
	 */
	private boolean live(Member member) {
		if (member.nested()) {
			String state = this.workflows.get(member.id).state();
			return state != null && !ENDED.contains(state);
		}
		return this.redis.opsForHash().hasKey(this.store.keys(member.queue).jobs(), member.id);
	}

	private boolean dead(Member member) {
		return !member.nested()
				&& this.redis.opsForZSet().score(this.store.keys(member.queue).dead(), member.id) != null;
	}

	/**
	 * The first finish that a member without one shows: a job dead, or gone once seen; a
	 * nested workflow's end as its parent counts it.
	 */
	private @Nullable Character finish(Member member, boolean live, boolean dead) {
		if (member.nested()) {
			String state = this.workflows.get(member.id).state();
			return (state == null) ? null : switch (state) {
				case "succeeded" -> 's';
				case "failed" -> 'd';
				case "cancelled" -> 'c';
				default -> null;
			};
		}
		if (dead) {
			return 'd';
		}
		return (!live && member.seen) ? 's' : null;
	}

	/** Whether a callback was enqueued: waiting or running, or reserved before. */
	final boolean enqueued(String callback) {
		return this.callbackEnqueues.containsKey(callback)
				|| this.redis.opsForHash().hasKey(this.store.keys(CALLBACKS).jobs(), callback);
	}

	/**
	 * Check that a callback was enqueued at most once, only when due, and not again after
	 * it ran.
	 */
	private void checkCallback(String callback, boolean due, Invariant invariant, Invariant early, Object workflow) {
		check(!enqueued(callback) || due, early,
				() -> callback + " enqueued before its workflow ended so: " + workflow);
		check(this.callbackEnqueues.getOrDefault(callback, 0) <= 1, invariant,
				() -> callback + " enqueued " + this.callbackEnqueues.get(callback) + " times");
		check(!this.callbacksRun.contains(callback)
				|| !this.redis.opsForHash().hasKey(this.store.keys(CALLBACKS).jobs(), callback), invariant,
				() -> callback + " enqueued again after it ran");
	}

	/**
	 * Check that a callback was enqueued exactly as often as expected.
	 */
	private void checkCallbackAtEnd(String callback, int expected, Invariant invariant, Object workflow) {
		int enqueued = this.callbackEnqueues.getOrDefault(callback, 0);
		check(enqueued == expected, invariant,
				() -> callback + " enqueued " + enqueued + " time(s), expected " + expected + ": " + workflow);
	}

	static long number(@Nullable Object value) {
		return (value != null) ? Long.parseLong(value.toString()) : 0;
	}

	static void check(boolean condition, Invariant invariant, Supplier<String> detail) {
		if (!condition) {
			throw new ViolationException(invariant, detail.get());
		}
	}

	final void trace(String line) {
		this.trace.addLast(this.step + ": " + line);
		if (this.trace.size() > TRACE_LENGTH) {
			this.trace.removeFirst();
		}
	}

	/**
	 * A member of a batch or a step of a chain: a job of a queue, or a nested batch or
	 * chain ({@code {batch}}, {@code {chain}}); whether the tester saw it wait or run,
	 * and its first finish as the tester saw it: {@code s} succeeded, {@code d} dead (a
	 * nested workflow failed), {@code c} cancelled, {@code p} purged with its queue.
	 */
	static final class Member {

		final String queue;

		final String id;

		boolean seen;

		@Nullable Character first;

		Member(String queue, String id) {
			this.queue = queue;
			this.id = id;
		}

		Member(PreparedCommand command) {
			this(command.queue(), command.command().id());
		}

		boolean nested() {
			return this.queue.startsWith("{");
		}

		@Override
		public String toString() {
			return this.id + ((this.first != null) ? "=" + this.first : this.seen ? "" : "?");
		}

	}

	/**
	 * A batch or a chain as the tester created it, and its members.
	 */
	abstract class Workflow {

		final String id;

		final List<Member> members = new ArrayList<>();

		/** Whether the tester saw it kept in Redis: a batch step is created late. */
		boolean started;

		/** Whether it was asked to cancel. */
		boolean cancelled;

		/**
		 * Whether its cancel returned, or that of a workflow that holds it: no member
		 * starts since.
		 */
		boolean closed;

		/** How it ended, as the tester first saw it. */
		@Nullable String endState;

		/** What creates it again, or {@code null}. */
		private final @Nullable Runnable creation;

		Workflow(String id, @Nullable Runnable creation) {
			this.id = id;
			this.creation = creation;
		}

		final void createAgain() {
			if (this.creation != null) {
				this.creation.run();
			}
		}

		final long count(char outcome) {
			return this.members.stream().filter((member) -> Character.valueOf(outcome).equals(member.first)).count();
		}

		final boolean finished() {
			return this.members.stream().allMatch((member) -> member.first != null);
		}

		/** Note that its cancel returned, and so that of each workflow it holds. */
		final void close() {
			this.closed = true;
			this.members.stream()
				.filter(Member::nested)
				.forEach((member) -> WorkflowScriptTester.this.workflows.get(member.id).close());
		}

		/**
		 * Check that a member seen for the first time did not start after the cancel.
		 */
		final void checkNotClosed(Member member) {
			check(!this.closed, Invariant.NOTHING_AFTER_CANCEL,
					() -> member.id + " started after the cancel of " + this.id + " returned: " + this);
		}

		/** Check that each of its keys is gone, or expires, once everything ended. */
		final void checkKeysExpire() {
			for (String key : keys()) {
				Long ttl = redis().getExpire(key);
				check(ttl == null || ttl != -1, Invariant.KEYS_EXPIRE,
						() -> key + " never expires once " + this.id + " ended: " + this);
			}
		}

		/** Its meta hash. */
		abstract String meta();

		/** Its keys. */
		abstract List<String> keys();

		/**
		 * Its state as Redis keeps it: its outcome once it ended, or {@code null} when it
		 * is not kept.
		 */
		abstract @Nullable String state();

		/** Cancel it as an operator does; return whether it was running. */
		abstract boolean cancel();

		/** Note a cancel that reached it, through a workflow that holds it too. */
		abstract void noteCancel();

		/** The fields of what it keeps until it is delivered. */
		abstract List<String> deliveryFields();

		/** Whether what it keeps under the given field was delivered. */
		boolean delivered(String field) {
			// a nested workflow's end, delivered once its parent counted it
			Workflow parent = parent();
			if (parent instanceof Batch batch) {
				return !Boolean.TRUE.equals(this.redis().opsForSet().isMember(batch.batchKeys().pending(), this.id));
			}
			return parent != null
					&& this.redis().opsForHash().hasKey(parent.meta(), "o" + (parent.indexOf(this.id) + 1));
		}

		/** The workflow it is a member or step of, or {@code null}. */
		final @Nullable Workflow parent() {
			return WorkflowScriptTester.this.workflows.values()
				.stream()
				.filter((workflow) -> workflow.indexOf(this.id) >= 0)
				.findFirst()
				.orElse(null);
		}

		final int indexOf(String memberId) {
			for (int i = 0; i < this.members.size(); i++) {
				if (this.members.get(i).id.equals(memberId)) {
					return i;
				}
			}
			return -1;
		}

		final StringRedisTemplate redis() {
			return WorkflowScriptTester.this.redis;
		}

		/** Record what Redis shows of it and its members. */
		abstract void observe();

		/** Check it after a step. */
		abstract void checkAfterStep();

		/** Check it once everything ran to its end. */
		abstract void checkAtEnd();

	}

	/**
	 * A batch, and the first finish of each member.
	 */
	final class Batch extends Workflow {

		final boolean failFast;

		/**
		 * Whether it was made ended before its creation, which is then refused: a batch
		 * step of a chain cancelled while a mover was on its way to create it.
		 */
		boolean forestalled;

		Batch(String id, boolean failFast, List<Member> members, @Nullable Runnable creation) {
			super(id, creation);
			this.failFast = failFast;
			this.members.addAll(members);
		}

		BatchKeys batchKeys() {
			return WorkflowScriptTester.this.store.batchKeys(this.id);
		}

		@Override
		List<String> keys() {
			return batchKeys().all();
		}

		@Override
		String meta() {
			return batchKeys().meta();
		}

		@Override
		@Nullable String state() {
			List<Object> found = redis().opsForHash().multiGet(meta(), List.of("state", "outcome"));
			return (found.get(1) != null) ? (String) found.get(1) : (String) found.get(0);
		}

		/**
		 * Whether the batch ended: every member finished, or one died under fail fast.
		 */
		boolean ended() {
			return finished() || (this.failFast && count('d') > 0);
		}

		/** Whether every member succeeded, and no cancel came. */
		boolean succeeded() {
			return count('s') == this.members.size() && !this.cancelled;
		}

		@Override
		boolean cancel() {
			return WorkflowScriptTester.this.handOvers.getCancelOperations().cancel(this.id, null);
		}

		@Override
		void noteCancel() {
			this.cancelled |= redis().opsForHash().hasKey(meta(), "cancelling");
		}

		@Override
		List<String> deliveryFields() {
			return List.of("success", "complete", PARENT);
		}

		@Override
		boolean delivered(String field) {
			return field.equals(PARENT) ? super.delivered(field) : enqueued(this.id + ":" + field);
		}

		@Override
		void observe() {
			boolean kept = state() != null;
			if (kept && !this.started) {
				this.forestalled = number(redis().opsForHash().get(meta(), "total")) == 0;
			}
			this.started |= kept;
			for (Member member : this.members) {
				boolean live = live(member);
				if (live && !member.seen) {
					checkNotClosed(member);
				}
				member.seen |= live;
				if (member.first == null) {
					member.first = finish(member, live, dead(member));
				}
				// never enqueued: a forestalled batch's, or counted cancelled by a cancel
				// that came while the batch was created
				if (member.first == null && !member.seen && (this.forestalled || this.cancelled
						&& !Boolean.TRUE.equals(redis().opsForSet().isMember(batchKeys().pending(), member.id)))) {
					member.first = 'c';
				}
			}
		}

		@Override
		void checkAfterStep() {
			if (!this.started || this.forestalled) {
				// a batch step its chain has not reached, or never created
				for (String name : List.of("success", "complete")) {
					check(!enqueued(this.id + ":" + name), Invariant.CALLBACK_EARLY,
							() -> this.id + ":" + name + " enqueued before its batch was created");
				}
				return;
			}
			List<Object> meta = redis().opsForHash()
				.multiGet(meta(), List.of("total", "succeeded", "dead", "cancelled"));
			Set<String> pending = redis().opsForSet().members(batchKeys().pending());
			long total = number(meta.get(0));
			long succeeded = number(meta.get(1));
			long dead = number(meta.get(2));
			long cancelledOrPurged = number(meta.get(3));
			long counted = succeeded + dead + cancelledOrPurged;
			check(total == this.members.size() && counted + pending.size() == total, Invariant.BATCH_COUNTS,
					() -> this.id + " counts " + meta + " with pending " + pending + ": " + this);
			check(succeeded <= count('s') && dead <= count('d') && cancelledOrPurged <= count('c') + count('p'),
					Invariant.BATCH_COUNTS,
					() -> this.id + " counts " + meta + " beyond its members' first finishes: " + this);
			for (Member member : this.members) {
				check(member.first != null || pending.contains(member.id), Invariant.BATCH_COUNTS,
						() -> member.id + " left " + this.id + "'s pending set before it finished: " + this);
			}
			checkCallback(this.id + ":success", succeeded(), Invariant.CALLBACK_ONCE, Invariant.CALLBACK_EARLY, this);
			checkCallback(this.id + ":complete", ended(), Invariant.CALLBACK_ONCE, Invariant.CALLBACK_EARLY, this);
		}

		@Override
		void checkAtEnd() {
			if (!this.started || this.forestalled) {
				checkCallbackAtEnd(this.id + ":success", 0, Invariant.CALLBACK_ONCE, this);
				checkCallbackAtEnd(this.id + ":complete", 0, Invariant.CALLBACK_ONCE, this);
				return;
			}
			check(ended(), Invariant.CALLBACK_ONCE, () -> this.id + " never finished: " + this);
			checkCallbackAtEnd(this.id + ":success", succeeded() ? 1 : 0, Invariant.CALLBACK_ONCE, this);
			checkCallbackAtEnd(this.id + ":complete", 1, Invariant.CALLBACK_ONCE, this);
			// each member's finish handed over, a nested workflow's end too
			Long pending = redis().opsForSet().size(batchKeys().pending());
			check(pending == 0, Invariant.BATCH_COUNTS,
					() -> this.id + " still has " + pending + " pending once every member finished: " + this);
		}

		@Override
		public String toString() {
			return this.id + (this.failFast ? " (fail fast)" : "") + (this.cancelled ? " (cancelled)" : "")
					+ (this.forestalled ? " (forestalled)" : "") + " of " + this.members;
		}

	}

	/**
	 * A chain, the steps the tester saw wait or run, and the first finish of each.
	 */
	final class Chain extends Workflow {

		Chain(String id, List<Member> steps, @Nullable Runnable creation) {
			super(id, creation);
			this.members.addAll(steps);
		}

		@Override
		String meta() {
			return WorkflowScriptTester.this.store.getKeyspace().chain(this.id);
		}

		@Override
		List<String> keys() {
			return List.of(meta());
		}

		@Override
		@Nullable String state() {
			return (String) redis().opsForHash().get(meta(), "state");
		}

		@Override
		boolean cancel() {
			return WorkflowScriptTester.this.chains.cancel(this.id, null);
		}

		@Override
		void noteCancel() {
			this.cancelled |= redis().opsForHash().hasKey(meta(), "cancelling")
					|| (this.endState == null && "cancelled".equals(state()));
		}

		@Override
		List<String> deliveryFields() {
			List<String> fields = new ArrayList<>();
			for (int i = 2; i <= this.members.size(); i++) {
				fields.add("s" + i);
			}
			fields.add("failure");
			fields.add(PARENT);
			return fields;
		}

		@Override
		boolean delivered(String field) {
			if (field.equals("failure")) {
				return enqueued(this.id + ":failure");
			}
			if (field.equals(PARENT)) {
				return super.delivered(field);
			}
			Member step = this.members.get(Integer.parseInt(field.substring(1)) - 1);
			return step.seen || (step.nested() && WorkflowScriptTester.this.workflows.get(step.id).started);
		}

		/**
		 * Record what each step shows: a step seen for the first time must follow a step
		 * that succeeded, in a chain not seen ended; a step that finished must not come
		 * back unless revived.
		 */
		@Override
		void observe() {
			this.started |= state() != null;
			for (int i = 0; i < this.members.size(); i++) {
				Member step = this.members.get(i);
				Member before = (i > 0) ? this.members.get(i - 1) : null;
				boolean live = live(step);
				boolean dead = dead(step);
				Character first = step.first;
				if (live && !step.seen) {
					step.seen = true;
					checkNotClosed(step);
					check(before == null || Character.valueOf('s').equals(before.first), Invariant.STEP_ORDER,
							() -> step.id + " started before the step before it succeeded: " + this);
					check(this.endState == null, Invariant.STEP_ORDER,
							() -> step.id + " started after its chain ended: " + this);
				}
				else if (live && first != null
						&& !(dead || (first == 'd' && WorkflowScriptTester.this.revived.contains(step.id)))) {
					check(false, Invariant.STEP_ONCE,
							() -> step.id + " came back after it finished (" + first + "): " + this);
				}
				if (first == null) {
					step.first = finish(step, live, dead);
				}
			}
		}

		@Override
		void checkAfterStep() {
			String state = String.valueOf(state());
			boolean died = count('d') > 0;
			String failure = this.id + ":failure";
			checkCallback(failure, died, Invariant.ON_FAILURE_ONCE, Invariant.ON_FAILURE_ONCE, this);
			check(!state.equals("succeeded") || finished() && count('s') == this.members.size(), Invariant.CHAIN_END,
					() -> this.id + " succeeded: " + this);
			check(!state.equals("failed") || died, Invariant.CHAIN_END, () -> this.id + " failed: " + this);
			check(!state.equals("cancelled") || this.cancelled || count('c') + count('p') > 0, Invariant.CHAIN_END,
					() -> this.id + " cancelled, never asked to nor a step cancelled or purged: " + this);
			check(this.endState == null || state.equals(this.endState), Invariant.CHAIN_END,
					() -> this.id + " ended " + this.endState + ", then " + state + ": " + this);
			if (this.endState == null && ENDED.contains(state)) {
				this.endState = state;
			}
		}

		@Override
		void checkAtEnd() {
			String state = String.valueOf(state());
			check(ENDED.contains(state), Invariant.CHAIN_END, () -> this.id + " never ended: " + state + ", " + this);
			checkCallbackAtEnd(this.id + ":failure", state.equals("failed") ? 1 : 0, Invariant.ON_FAILURE_ONCE,
					state + ", " + this);
		}

		@Override
		public String toString() {
			return this.id + " of " + this.members + (this.cancelled ? " (cancelled)" : "");
		}

	}

	/** The jobs of the member queues, one per queue, named after it. */
	private static final class MemberJobs implements JobDefinitions {

		private final List<JobDefinition> all;

		MemberJobs(List<String> queues) {
			this.all = queues.stream()
				.map((queue) -> new JobDefinition(queue, queue, 2, Duration.ZERO, JobBackoff.DEFAULT, String.class))
				.toList();
		}

		@Override
		public @Nullable JobDefinition find(String name) {
			return this.all.stream().filter((definition) -> definition.name().equals(name)).findFirst().orElse(null);
		}

		@Override
		public Collection<JobDefinition> all() {
			return this.all;
		}

	}

	record Held(String queue, ReservedJob job) {

		@Override
		public String toString() {
			return this.job.id() + "#" + this.job.attempt() + " of " + this.queue;
		}

	}

	private static final class ViolationException extends RuntimeException {

		private final Invariant invariant;

		ViolationException(Invariant invariant, String detail) {
			super(detail, null, false, false);
			this.invariant = invariant;
		}

	}

}
