package io.redq.queue.redis.tester;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.Uniqueness;
import io.redq.queue.redis.BatchOperations;
import io.redq.queue.redis.ChainCommand;
import io.redq.queue.redis.ChainOperations;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.PreparedCommand;
import io.redq.queue.redis.QueueStore;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ResendProtection;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.redis.tester.ScriptTester.Invariant;
import io.redq.queue.redis.tester.ScriptTester.Violation;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Drives {@code chain.lua} with the queue scripts on a real Redis through a random
 * interleaving, chosen by a seeded {@link Random} on one thread so that a seed reproduces
 * its run: chains created (as an outbox relay creates them, perhaps again), steps
 * reserved, acknowledged (again, when Lettuce re-sends it, and late, after their lease
 * expired), failed to death, revived from the dead set, leases expired and migrated,
 * chains cancelled, hand-overs applied (again, when a migrator died before it removed
 * them) and the next steps and on-failure jobs delivered (again, when it died before it
 * recorded the delivery), on-failure jobs run. After every step it checks that no step
 * started before the step before it succeeded, nor once its chain ended, that no step
 * came back once it finished (unless revived), that the on-failure job was enqueued at
 * most once and only after a step died, and that a chain ended as its steps' first
 * finishes call for; at the end, once everything ran, that every chain ended and its
 * on-failure job was enqueued exactly once when it failed.
 * <p>
 * The tester's model of a step's first finish is what it sees in the step's queue after
 * each step: the step dead, cancelled (gone in the cancel of its chain), or gone
 * (acknowledged).
 *
 * @author Redq team
 */
final class ChainScriptTester {

	static final List<String> QUEUES = List.of("steps-0", "steps-1");

	static final String CALLBACKS = "callbacks";

	private static final Duration LONG_LEASE = Duration.ofSeconds(60);

	private static final Duration WINDOW = Duration.ofHours(1);

	private static final int TRACE_LENGTH = 40;

	private static final Set<String> ENDED = Set.of("succeeded", "failed", "cancelled");

	private final int steps;

	private final Set<Fault> faults;

	private final Random random;

	private final RedisJobQueueOperations operations;

	private final ChainOperations chains;

	/** What hands over the steps' finishes, as a migrator does. */
	private final BatchOperations handOvers;

	private final ListenerOperations listeners;

	private final StringRedisTemplate redis;

	private final QueueStore store;

	private final Map<String, Chain> chainsById = new LinkedHashMap<>();

	private final List<Chain> creationsToApplyAgain = new ArrayList<>();

	/** The jobs that workers hold, of any queue. */
	private final List<Held> held = new ArrayList<>();

	/** The first-attempt reservations of each on-failure job: one per enqueue. */
	private final Map<String, Integer> failureEnqueues = new HashMap<>();

	/** The on-failure jobs whose run was acknowledged. */
	private final Set<String> failuresRun = new HashSet<>();

	/** The dead steps an operator revived: they run again as plain jobs. */
	private final Set<String> revived = new HashSet<>();

	private final Deque<String> trace = new ArrayDeque<>();

	private int step;

	/** Whether the run is finishing: workers then hold their jobs for long. */
	private boolean finishing;

	ChainScriptTester(RedisJobQueueOperations operations, ChainOperations chains, BatchOperations handOvers, int steps,
			Set<Fault> faults, long seed) {
		this.operations = operations;
		this.chains = chains;
		this.handOvers = handOvers;
		this.steps = steps;
		this.faults = faults;
		this.random = new Random(seed);
		this.store = operations.getStore();
		this.listeners = operations.getListenerOperations();
		this.redis = this.store.getTemplate();
	}

	/**
	 * Run the steps, checking the invariants after each, then run everything to its end
	 * and check that each chain ended and its on-failure job was enqueued as it calls
	 * for.
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
	}

	private boolean nextStep() {
		int choice = this.random.nextInt(100);
		if (choice < 8) {
			return create();
		}
		if (choice < 11) {
			return createAgain();
		}
		if (choice < 33) {
			return reserve(anyQueue());
		}
		if (choice < 39) {
			return reserve(CALLBACKS);
		}
		if (choice < 59) {
			return ack();
		}
		if (choice < 69) {
			return fail();
		}
		if (choice < 72) {
			return revive();
		}
		if (choice < 75) {
			return cancel();
		}
		if (choice < 81) {
			migrate(anyQueue());
			return true;
		}
		return handOver(anyQueue());
	}

	private String anyQueue() {
		return QUEUES.get(this.random.nextInt(QUEUES.size()));
	}

	private boolean enabled(Fault fault, double probability) {
		return this.faults.contains(fault) && this.random.nextDouble() < probability;
	}

	// producers

	private boolean create() {
		String id = "c" + (this.chainsById.size() + 1);
		List<PreparedCommand> steps = new ArrayList<>();
		for (int i = 1, count = 2 + this.random.nextInt(3); i <= count; i++) {
			int maxAttempts = 1 + this.random.nextInt(2);
			steps.add(new PreparedCommand(anyQueue(), EnqueueCommand.withGeneratedId(id + ":" + i, Due.NOW,
					"\"job\":\"step\",\"maxAttempts\":" + maxAttempts + ",\"payload\":\"" + id + "\"}")));
		}
		PreparedCommand onFailure = new PreparedCommand(CALLBACKS,
				new EnqueueCommand(id + ":failure", Due.NOW, DuplicatePolicy.KEEP, Uniqueness.UNTIL_COMPLETED,
						"\"job\":\"failure\",\"maxAttempts\":3,\"payload\":\"" + id + "\"}"));
		Chain chain = new Chain(id, new ChainCommand(id, Duration.ofMinutes(10), steps, onFailure),
				ResendProtection.newId());
		this.chainsById.put(id, chain);
		this.chains.createOnce(chain.command, chain.callId, WINDOW);
		String again = "";
		if (enabled(Fault.BATCH_CREATION_APPLIED_AGAIN, 0.4)) {
			this.creationsToApplyAgain.add(chain);
			again = ", its relay dies before it deletes the row";
		}
		trace("a relay creates " + id + " of " + steps.stream().map((s) -> s.command().id() + "@" + s.queue()).toList()
				+ again);
		return true;
	}

	private boolean createAgain() {
		if (this.creationsToApplyAgain.isEmpty()) {
			return false;
		}
		Chain chain = this.creationsToApplyAgain.remove(this.random.nextInt(this.creationsToApplyAgain.size()));
		this.chains.createOnce(chain.command, chain.callId, WINDOW);
		trace("another relay creates " + chain.id + " again");
		return true;
	}

	// workers

	private boolean reserve(String queue) {
		Duration lease = (this.finishing || queue.equals(CALLBACKS) || this.random.nextInt(10) < 6) ? LONG_LEASE
				: Duration.ofMillis(1 + this.random.nextInt(5));
		List<ReservedJob> jobs = this.listeners.reserve(queue, 1 + this.random.nextInt(3), lease).jobs();
		for (ReservedJob job : jobs) {
			this.held.add(new Held(queue, job));
			if (queue.equals(CALLBACKS) && job.attempt() == 1) {
				this.failureEnqueues.merge(job.id(), 1, Integer::sum);
			}
		}
		trace("a worker reserves " + jobs.stream().map((job) -> job.id() + "#" + job.attempt()).toList() + " of "
				+ queue + " for " + lease.toMillis() + " ms");
		return !jobs.isEmpty();
	}

	/** A worker acknowledges a job it holds: in time, or late after its lease expired. */
	private boolean ack() {
		if (this.held.isEmpty()) {
			return false;
		}
		Held job = this.held.remove(this.random.nextInt(this.held.size()));
		boolean accepted = this.listeners.ack(job.queue, List.of(job.job.lease())).isEmpty();
		String resent = "";
		if (enabled(Fault.ACK_RESENT, 0.2)) {
			resent = ", re-sent: " + this.listeners.ack(job.queue, List.of(job.job.lease())).isEmpty();
		}
		if (accepted && job.queue.equals(CALLBACKS)) {
			this.failuresRun.add(job.job.id());
		}
		trace("a worker acknowledges " + job + ": " + (accepted ? "accepted" : "refused") + resent);
		return true;
	}

	private boolean fail() {
		List<Held> steps = this.held.stream().filter((job) -> !job.queue.equals(CALLBACKS)).toList();
		if (steps.isEmpty()) {
			return false;
		}
		Held job = steps.get(this.random.nextInt(steps.size()));
		this.held.remove(job);
		boolean failed = this.listeners.fail(job.queue, job.job.lease(), "boom", Duration.ZERO);
		trace("a worker fails " + job + ": " + failed);
		return true;
	}

	// operators and migrators

	private boolean revive() {
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
	 * An operator cancels a chain: the steps that were pending in their queues before and
	 * are gone after were cancelled.
	 */
	private boolean cancel() {
		if (this.chainsById.isEmpty()) {
			return false;
		}
		List<Chain> all = List.copyOf(this.chainsById.values());
		Chain chain = all.get(this.random.nextInt(all.size()));
		observe();
		Set<Integer> before = new HashSet<>();
		for (int i = 1; i <= chain.size(); i++) {
			if (chain.first.get(i) == null && exists(chain, i)) {
				before.add(i);
			}
		}
		boolean cancelled = this.chains.cancel(chain.id, null);
		chain.cancelled |= cancelled;
		for (int i : before) {
			if (!exists(chain, i)) {
				chain.first.put(i, 'c');
			}
		}
		trace("an operator cancels " + chain.id + ": " + cancelled);
		return true;
	}

	private void migrate(String queue) {
		this.listeners.migrate(queue);
		trace("a migrator moves the expired leases of " + queue);
	}

	private boolean handOver(String queue) {
		String handover = this.store.keys(queue).handover();
		Set<String> entries = this.redis.opsForZSet().range(handover, 0, -1);
		boolean keepDeliveries = enabled(Fault.DELIVERY_NOT_RECORDED, 0.3);
		Map<String, List<Object>> jobs = new HashMap<>();
		if (keepDeliveries) {
			for (Chain chain : this.chainsById.values()) {
				jobs.put(chain.id, this.redis.<String, Object>opsForHash().multiGet(meta(chain), chain.jobFields()));
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
			jobs.forEach((chainId, before) -> {
				Chain chain = this.chainsById.get(chainId);
				List<String> fields = chain.jobFields();
				List<Object> after = this.redis.<String, Object>opsForHash().multiGet(meta(chain), fields);
				for (int i = 0; i < fields.size(); i++) {
					// delivered, not deleted by the chain's end
					if (before.get(i) != null && after.get(i) == null && delivered(chain, fields.get(i))) {
						this.redis.opsForHash().put(meta(chain), fields.get(i), before.get(i));
					}
				}
			});
			faults += ", dies before it records its deliveries";
		}
		trace("a migrator hands over " + applied + " finish(es) of " + queue + faults);
		return true;
	}

	/** Whether the job a chain keeps under the given field was enqueued. */
	private boolean delivered(Chain chain, String field) {
		if (field.equals("failure")) {
			return failureEnqueued(chain);
		}
		return chain.seen.contains(Integer.parseInt(field.substring(1)));
	}

	/**
	 * Run everything to its end, until nothing waits, then check that every chain ended
	 * and its on-failure job was enqueued exactly once when it failed.
	 */
	private void finishAll() {
		this.step = this.steps + 1;
		this.finishing = true;
		trace("every step and on-failure job is run to its end");
		for (int round = 0; round < 1000 && !allDone(); round++) {
			for (Held job : List.copyOf(this.held)) {
				this.held.remove(job);
				if (this.listeners.ack(job.queue, List.of(job.job.lease())).isEmpty() && job.queue.equals(CALLBACKS)) {
					this.failuresRun.add(job.job.id());
				}
			}
			for (String queue : QUEUES) {
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
		for (Chain chain : this.chainsById.values()) {
			String state = state(chain);
			check(ENDED.contains(state), Invariant.CHAIN_END, () -> chain.id + " never ended: " + state + ", " + chain);
			int expected = state.equals("failed") ? 1 : 0;
			int enqueued = this.failureEnqueues.getOrDefault(chain.id + ":failure", 0);
			check(enqueued == expected, Invariant.ON_FAILURE_ONCE, () -> chain.id + "'s on-failure job enqueued "
					+ enqueued + " time(s), expected " + expected + ": " + state + ", " + chain);
		}
	}

	private boolean allDone() {
		return this.held.isEmpty()
				&& this.chainsById.values().stream().allMatch((chain) -> ENDED.contains(state(chain)))
				&& QUEUES.stream()
					.allMatch((queue) -> this.redis.opsForZSet().size(this.store.keys(queue).handover()) == 0)
				&& this.redis.opsForHash().size(this.store.keys(CALLBACKS).jobs()) == 0;
	}

	// the model and the invariants

	/**
	 * Record what each step's queue shows: a step seen for the first time must follow a
	 * step that succeeded, in a chain not seen ended; a step seen dead first finished
	 * dead, a step seen before and gone now was acknowledged (unless its chain's cancel
	 * took it); a step that finished must not come back unless revived.
	 */
	private void observe() {
		for (Chain chain : this.chainsById.values()) {
			for (int i = 1; i <= chain.size(); i++) {
				String id = chain.stepId(i);
				boolean dead = this.redis.opsForZSet().score(this.store.keys(chain.queue(i)).dead(), id) != null;
				boolean exists = exists(chain, i);
				Character first = chain.first.get(i);
				if (exists && chain.seen.add(i)) {
					check(i == 1 || Character.valueOf('s').equals(chain.first.get(i - 1)), Invariant.STEP_ORDER,
							() -> id + " started before the step before it succeeded: " + chain);
					check(!chain.endSeen, Invariant.STEP_ORDER, () -> id + " started after its chain ended: " + chain);
				}
				else if (exists && first != null && !(dead || (first == 'd' && this.revived.contains(id)))) {
					check(false, Invariant.STEP_ONCE,
							() -> id + " came back after it finished (" + first + "): " + chain);
				}
				if (first == null && dead) {
					chain.first.put(i, 'd');
				}
				else if (first == null && !exists && chain.seen.contains(i)) {
					chain.first.put(i, 's');
				}
			}
		}
	}

	private void checkState() {
		for (Chain chain : this.chainsById.values()) {
			String state = state(chain);
			boolean died = chain.first.containsValue('d');
			String failure = chain.id + ":failure";
			check(!failureEnqueued(chain) || died, Invariant.ON_FAILURE_ONCE,
					() -> failure + " enqueued while no step died: " + chain);
			check(this.failureEnqueues.getOrDefault(failure, 0) <= 1, Invariant.ON_FAILURE_ONCE,
					() -> failure + " enqueued " + this.failureEnqueues.get(failure) + " times");
			check(!this.failuresRun.contains(failure)
					|| !this.redis.opsForHash().hasKey(this.store.keys(CALLBACKS).jobs(), failure),
					Invariant.ON_FAILURE_ONCE, () -> failure + " enqueued again after it ran");
			check(!state.equals("succeeded")
					|| chain.first.size() == chain.size() && !died && !chain.first.containsValue('c'),
					Invariant.CHAIN_END, () -> chain.id + " succeeded: " + chain);
			check(!state.equals("failed") || died, Invariant.CHAIN_END, () -> chain.id + " failed: " + chain);
			check(!state.equals("cancelled") || chain.cancelled, Invariant.CHAIN_END,
					() -> chain.id + " cancelled, never asked to: " + chain);
			check(!chain.endSeen || state.equals(chain.endState), Invariant.CHAIN_END,
					() -> chain.id + " ended " + chain.endState + ", then " + state + ": " + chain);
			if (!chain.endSeen && ENDED.contains(state)) {
				chain.endSeen = true;
				chain.endState = state;
			}
		}
	}

	private boolean exists(Chain chain, int step) {
		return this.redis.opsForHash().hasKey(this.store.keys(chain.queue(step)).jobs(), chain.stepId(step));
	}

	/**
	 * Whether a chain's on-failure job was enqueued: waiting or running, or reserved
	 * before.
	 */
	private boolean failureEnqueued(Chain chain) {
		String failure = chain.id + ":failure";
		return this.failureEnqueues.containsKey(failure)
				|| this.redis.opsForHash().hasKey(this.store.keys(CALLBACKS).jobs(), failure);
	}

	private String state(Chain chain) {
		Object state = this.redis.opsForHash().get(meta(chain), "state");
		return (state != null) ? state.toString() : "gone";
	}

	private String meta(Chain chain) {
		return this.store.getKeyspace().chain(chain.id);
	}

	private void check(boolean condition, Invariant invariant, Supplier<String> detail) {
		if (!condition) {
			throw new ViolationException(invariant, detail.get());
		}
	}

	private void trace(String line) {
		this.trace.addLast(this.step + ": " + line);
		if (this.trace.size() > TRACE_LENGTH) {
			this.trace.removeFirst();
		}
	}

	/**
	 * A chain as the tester created it, the steps it saw in their queues, and the first
	 * finish of each as the tester saw it: {@code s} acknowledged, {@code d} dead,
	 * {@code c} cancelled.
	 */
	private static final class Chain {

		final String id;

		final ChainCommand command;

		final String callId;

		final Set<Integer> seen = new HashSet<>();

		final Map<Integer, Character> first = new LinkedHashMap<>();

		boolean cancelled;

		boolean endSeen;

		@Nullable String endState;

		Chain(String id, ChainCommand command, String callId) {
			this.id = id;
			this.command = command;
			this.callId = callId;
		}

		int size() {
			return this.command.steps().size();
		}

		String queue(int step) {
			return this.command.steps().get(step - 1).queue();
		}

		String stepId(int step) {
			return this.command.steps().get(step - 1).command().id();
		}

		/** The fields of the jobs the chain keeps until it delivers them. */
		List<String> jobFields() {
			List<String> fields = new ArrayList<>();
			for (int i = 2; i <= size(); i++) {
				fields.add("s" + i);
			}
			fields.add("failure");
			return fields;
		}

		@Override
		public String toString() {
			return this.id + " of " + this.command.steps().stream().map((s) -> s.queue()).toList() + " seen "
					+ this.seen + " finished " + this.first + (this.cancelled ? " (cancelled)" : "");
		}

	}

	private record Held(String queue, ReservedJob job) {

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
