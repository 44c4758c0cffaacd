package io.redq.queue.redis.tester;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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
import java.util.function.Supplier;

import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.Uniqueness;
import io.redq.queue.redis.BatchCommand;
import io.redq.queue.redis.BatchKeys;
import io.redq.queue.redis.BatchOperations;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.PreparedCommand;
import io.redq.queue.redis.QueueStore;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ResendProtection;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.redis.tester.ScriptTester.Invariant;
import io.redq.queue.redis.tester.ScriptTester.Violation;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Drives {@code batch.lua} with the queue scripts on a real Redis through a random
 * interleaving, chosen by a seeded {@link Random} on one thread so that a seed reproduces
 * its run: batches created (as an outbox relay creates them, perhaps again), members
 * reserved, acknowledged (late too), failed to death, revived from the dead set and run
 * again, members added (by a process that may die between the add and the enqueue),
 * leases expired and migrated, hand-overs applied (again, when a migrator died before it
 * removed them) and callbacks delivered (again, when it died before it recorded the
 * delivery), callbacks run. After every step it checks that each batch counts each member
 * once, as the member first finished, and that each callback was enqueued at most once
 * and only once its batch ended as it calls for; at the end, once every member finished,
 * that each callback its batch's outcome calls for was enqueued exactly once.
 * <p>
 * The tester's model of a member's first finish is what it sees in the member's queue
 * after each step: the member dead, or gone (acknowledged). A callback's enqueues are
 * counted by its first-attempt reservations, and a callback that ran must not come back.
 *
 * @author Redq team
 */
final class BatchScriptTester {

	static final List<String> QUEUES = List.of("members-0", "members-1");

	static final String CALLBACKS = "callbacks";

	private static final Duration LONG_LEASE = Duration.ofSeconds(60);

	private static final Duration WINDOW = Duration.ofHours(1);

	private static final int TRACE_LENGTH = 40;

	/**
	 * The batch script, whose add the tester runs alone for a process that dies after it.
	 */
	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> ADD = script();

	private final int steps;

	private final Set<Fault> faults;

	private final Random random;

	private final RedisJobQueueOperations operations;

	private final BatchOperations batches;

	/** What a running member adds to its batch through. */
	private final RedisJobDispatcher dispatcher;

	private final ListenerOperations listeners;

	private final StringRedisTemplate redis;

	private final QueueStore store;

	private final Map<String, Batch> batchesById = new LinkedHashMap<>();

	private final Map<String, Batch> batchOfMember = new HashMap<>();

	private final List<Batch> creationsToApplyAgain = new ArrayList<>();

	/** The jobs that workers hold, of any queue. */
	private final List<Held> held = new ArrayList<>();

	/** The first-attempt reservations of each callback: one per enqueue. */
	private final Map<String, Integer> callbackEnqueues = new HashMap<>();

	/** The callbacks whose run was acknowledged. */
	private final Set<String> callbacksRun = new HashSet<>();

	private final Deque<String> trace = new ArrayDeque<>();

	private int step;

	/** Whether the run is finishing: workers then hold their jobs for long. */
	private boolean finishing;

	BatchScriptTester(RedisJobQueueOperations operations, BatchOperations batches, int steps, Set<Fault> faults,
			long seed) {
		this.operations = operations;
		this.batches = batches;
		this.steps = steps;
		this.faults = faults;
		this.random = new Random(seed);
		this.store = operations.getStore();
		this.listeners = operations.getListenerOperations();
		this.redis = this.store.getTemplate();
		this.dispatcher = new RedisJobDispatcher(operations, new MemberJobs(), JsonMapper.shared());
	}

	/**
	 * Run the steps, checking the invariants after each, then finish every member and
	 * check that each callback its batch calls for was enqueued exactly once.
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

	private boolean nextStep() {
		int choice = this.random.nextInt(100);
		if (choice < 10) {
			return create();
		}
		if (choice < 13) {
			return createAgain();
		}
		if (choice < 35) {
			return reserve(anyQueue());
		}
		if (choice < 42) {
			return reserve(CALLBACKS);
		}
		if (choice < 62) {
			return ack();
		}
		if (choice < 72) {
			return fail();
		}
		if (choice < 76) {
			return revive();
		}
		if (choice < 79) {
			return add();
		}
		if (choice < 84) {
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
		int number = this.batchesById.size() + 1;
		String id = "b" + number;
		boolean failFast = this.random.nextBoolean();
		List<PreparedCommand> members = new ArrayList<>();
		for (int i = 0, count = 1 + this.random.nextInt(5); i < count; i++) {
			int maxAttempts = 1 + this.random.nextInt(2);
			members.add(new PreparedCommand(anyQueue(), EnqueueCommand.withGeneratedId(id + "m" + i, Due.NOW,
					"\"job\":\"member\",\"maxAttempts\":" + maxAttempts + ",\"payload\":\"" + id + "\"}")));
		}
		Batch batch = new Batch(id, failFast,
				new BatchCommand(id, failFast ? BatchDeathPolicy.FAIL_FAST : BatchDeathPolicy.CARRY_ON,
						Duration.ofMinutes(10), members, callback(id, "success"), callback(id, "complete")),
				ResendProtection.newId());
		this.batchesById.put(id, batch);
		members.forEach((member) -> this.batchOfMember.put(member.command().id(), batch));
		this.batches.createOnce(batch.command, batch.callId, WINDOW);
		String again = "";
		if (enabled(Fault.BATCH_CREATION_APPLIED_AGAIN, 0.4)) {
			this.creationsToApplyAgain.add(batch);
			again = ", its relay dies before it deletes the row";
		}
		trace("a relay creates " + id + " (" + (failFast ? "fail fast" : "carry on") + ") of "
				+ members.stream().map((member) -> member.command().id() + "@" + member.queue()).toList() + again);
		return true;
	}

	private static PreparedCommand callback(String batchId, String name) {
		return new PreparedCommand(CALLBACKS,
				new EnqueueCommand(batchId + ":" + name, Due.NOW, DuplicatePolicy.KEEP, Uniqueness.UNTIL_COMPLETED,
						"\"job\":\"" + name + "\",\"maxAttempts\":3,\"payload\":\"" + batchId + "\"}"));
	}

	private boolean createAgain() {
		if (this.creationsToApplyAgain.isEmpty()) {
			return false;
		}
		Batch batch = this.creationsToApplyAgain.remove(this.random.nextInt(this.creationsToApplyAgain.size()));
		this.batches.createOnce(batch.command, batch.callId, WINDOW);
		trace("another relay creates " + batch.id + " again");
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
				this.callbackEnqueues.merge(job.id(), 1, Integer::sum);
			}
		}
		trace("a worker reserves " + jobs.stream().map((job) -> job.id() + "#" + job.attempt()).toList() + " of "
				+ queue + " for " + lease.toMillis() + " ms");
		return !jobs.isEmpty();
	}

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
			this.callbacksRun.add(job.job.id());
		}
		trace("a worker acknowledges " + job + ": " + (accepted ? "accepted" : "refused") + resent);
		return true;
	}

	private boolean fail() {
		Held job = anyHeldMember();
		if (job == null) {
			return false;
		}
		this.held.remove(job);
		boolean failed = this.listeners.fail(job.queue, job.job.lease(), "boom", Duration.ZERO);
		trace("a worker fails " + job + ": " + failed);
		return true;
	}

	private @Nullable Held anyHeldMember() {
		List<Held> members = this.held.stream().filter((job) -> !job.queue.equals(CALLBACKS)).toList();
		return members.isEmpty() ? null : members.get(this.random.nextInt(members.size()));
	}

	/**
	 * A running member adds members to its batch: accepted while the member is pending in
	 * it (it runs, or its completion is not handed over yet), refused otherwise.
	 */
	private boolean add() {
		Held adder = anyHeldMember();
		if (adder == null) {
			return false;
		}
		Batch batch = this.batchOfMember.get(adder.job.id());
		String batchId = batch.id;
		String queue = anyQueue();
		int number = batch.members.size();
		String outcome;
		if (enabled(Fault.ADD_NOT_ENQUEUED, 0.3)) {
			// the add's first step, as the dispatcher takes it, then its process dies
			String id = batchId + "-lost" + number;
			List<?> reply = this.redis.execute(ADD, this.store.batchKeys(batchId).all(), "add", adder.job.id(), queue,
					ResendProtection.newId(), id);
			if (Long.valueOf(1).equals(reply.get(0))) {
				batch.members.add(new PreparedCommand(queue, EnqueueCommand.withGeneratedId(id, Due.NOW, "")));
				this.batchOfMember.put(id, batch);
				// never enqueued: it counts cancelled once the adding member finished
				batch.finished.put(id, 'c');
				outcome = "added " + id + " (member " + number + "), then its process dies before the enqueue";
			}
			else {
				outcome = "refused: " + reply;
			}
			trace("running " + adder + " adds a member of " + queue + " to " + batchId + ": " + outcome);
			return true;
		}
		try {
			List<DispatchResult> added = this.dispatcher.addToBatch(batchId, adder.job.id(),
					List.of(JobRequest.of(queue, batchId).build()));
			// the dispatcher generates the id: the tester names members by their batch
			String id = added.get(0).id();
			batch.members.add(new PreparedCommand(queue, EnqueueCommand.withGeneratedId(id, Due.NOW, "")));
			this.batchOfMember.put(id, batch);
			outcome = "added " + id + " (member " + number + ")";
		}
		catch (IllegalStateException ex) {
			outcome = "refused: " + ex.getMessage();
		}
		trace("running " + adder + " adds a member of " + queue + " to " + batchId + ": " + outcome);
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
		long revived = this.operations.retryDead(queue, List.of(id));
		trace("an operator revives dead " + id + " of " + queue + ": " + revived);
		return true;
	}

	private void migrate(String queue) {
		this.listeners.migrate(queue);
		trace("a migrator moves the expired leases of " + queue);
	}

	private boolean handOver(String queue) {
		String handover = this.store.keys(queue).handover();
		Set<String> entries = this.redis.opsForZSet().range(handover, 0, -1);
		Map<String, List<Object>> callbacks = new HashMap<>();
		boolean keepDeliveries = enabled(Fault.DELIVERY_NOT_RECORDED, 0.3);
		if (keepDeliveries) {
			for (Batch batch : this.batchesById.values()) {
				callbacks.put(batch.id, this.redis.opsForHash().multiGet(meta(batch), List.of("success", "complete")));
			}
		}
		int applied = this.batches.handOver(queue);
		String faults = "";
		if (applied > 0 && enabled(Fault.HAND_OVER_APPLIED_AGAIN, 0.3)) {
			entries.forEach((entry) -> this.redis.opsForZSet().add(handover, entry, 0));
			faults += ", dies before it removes them";
		}
		if (keepDeliveries) {
			callbacks.forEach((batchId, before) -> {
				Batch batch = this.batchesById.get(batchId);
				List<Object> after = this.redis.opsForHash().multiGet(meta(batch), List.of("success", "complete"));
				for (int i = 0; i < 2; i++) {
					String name = (i == 0) ? "success" : "complete";
					// delivered, not deleted by the batch's end as its outcome calls for
					if (before.get(i) != null && after.get(i) == null && enqueued(batchId + ":" + name)) {
						this.redis.opsForHash().put(meta(batch), name, before.get(i));
					}
				}
			});
			faults += ", dies before it records its deliveries";
		}
		trace("a migrator hands over " + applied + " completion(s) of " + queue + faults);
		return true;
	}

	/**
	 * Finish every member and callback: run what waits, until nothing does, then check
	 * that each callback its batch calls for was enqueued exactly once.
	 */
	private void finishAll() {
		this.step = this.steps + 1;
		this.finishing = true;
		trace("every member and callback is run to its end");
		for (int round = 0; round < 1000 && !allDone(); round++) {
			for (Held job : List.copyOf(this.held)) {
				this.held.remove(job);
				if (this.listeners.ack(job.queue, List.of(job.job.lease())).isEmpty() && job.queue.equals(CALLBACKS)) {
					this.callbacksRun.add(job.job.id());
				}
			}
			for (String queue : QUEUES) {
				this.listeners.migrate(queue);
				while (reserve(queue)) {
					// acknowledged in the next round
				}
				this.batches.handOver(queue);
			}
			while (reserve(CALLBACKS)) {
				// acknowledged in the next round
			}
			observe();
			checkState();
		}
		for (Batch batch : this.batchesById.values()) {
			check(batch.ended(), Invariant.CALLBACK_ONCE, () -> batch.id + " never finished: " + batch);
			for (String name : List.of("success", "complete")) {
				String callback = batch.id + ":" + name;
				int expected = (name.equals("complete") || batch.succeeded()) ? 1 : 0;
				int enqueued = this.callbackEnqueues.getOrDefault(callback, 0);
				check(enqueued == expected, Invariant.CALLBACK_ONCE,
						() -> callback + " enqueued " + enqueued + " time(s), expected " + expected + ": " + batch);
			}
		}
	}

	private boolean allDone() {
		return this.held.isEmpty() && this.batchesById.values().stream().allMatch(Batch::ended)
				&& QUEUES.stream()
					.allMatch((queue) -> this.redis.opsForZSet().size(this.store.keys(queue).handover()) == 0)
				&& this.redis.opsForHash().size(this.store.keys(CALLBACKS).jobs()) == 0;
	}

	// the model and the invariants

	/**
	 * Record each member's first finish as its queue shows it: dead, or gone
	 * (acknowledged).
	 */
	private void observe() {
		for (Batch batch : this.batchesById.values()) {
			for (PreparedCommand member : batch.members) {
				String id = member.command().id();
				if (batch.finished.containsKey(id)) {
					continue;
				}
				if (this.redis.opsForZSet().score(this.store.keys(member.queue()).dead(), id) != null) {
					batch.finished.put(id, 'd');
				}
				else if (!this.redis.opsForHash().hasKey(this.store.keys(member.queue()).jobs(), id)) {
					batch.finished.put(id, 's');
				}
			}
		}
	}

	private void checkState() {
		for (Batch batch : this.batchesById.values()) {
			BatchKeys keys = this.store.batchKeys(batch.id);
			List<Object> meta = this.redis.opsForHash()
				.multiGet(keys.meta(), List.of("total", "succeeded", "dead", "cancelled"));
			Set<String> pending = this.redis.opsForSet().members(keys.pending());
			long total = number(meta.get(0));
			long succeeded = number(meta.get(1));
			long dead = number(meta.get(2));
			long counted = succeeded + dead + number(meta.get(3));
			check(total == batch.members.size() && counted + pending.size() == total, Invariant.BATCH_COUNTS,
					() -> batch.id + " counts " + meta + " with pending " + pending + ": " + batch);
			check(succeeded <= batch.count('s') && dead <= batch.count('d'), Invariant.BATCH_COUNTS,
					() -> batch.id + " counts " + meta + " beyond its members' first finishes: " + batch);
			for (PreparedCommand member : batch.members) {
				String id = member.command().id();
				check(batch.finished.containsKey(id) || pending.contains(id), Invariant.BATCH_COUNTS,
						() -> id + " left " + batch.id + "'s pending set before it finished: " + batch);
			}
			for (String name : List.of("success", "complete")) {
				String callback = batch.id + ":" + name;
				boolean enqueued = enqueued(callback);
				boolean due = name.equals("complete") ? batch.ended() : batch.succeeded();
				check(!enqueued || due, Invariant.CALLBACK_EARLY,
						() -> callback + " enqueued before its batch ended so: " + batch);
				check(this.callbackEnqueues.getOrDefault(callback, 0) <= 1, Invariant.CALLBACK_ONCE,
						() -> callback + " enqueued " + this.callbackEnqueues.get(callback) + " times");
				check(!this.callbacksRun.contains(callback)
						|| !this.redis.opsForHash().hasKey(this.store.keys(CALLBACKS).jobs(), callback),
						Invariant.CALLBACK_ONCE, () -> callback + " enqueued again after it ran");
			}
		}
	}

	/** Whether a callback was enqueued: waiting or running, or reserved before. */
	private boolean enqueued(String callback) {
		return this.callbackEnqueues.containsKey(callback)
				|| this.redis.opsForHash().hasKey(this.store.keys(CALLBACKS).jobs(), callback);
	}

	private String meta(Batch batch) {
		return this.store.batchKeys(batch.id).meta();
	}

	private static long number(@Nullable Object value) {
		return (value != null) ? Long.parseLong(value.toString()) : 0;
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
	 * A batch as the tester created it, and the first finish of each of its members as
	 * the tester saw it: {@code s} acknowledged, {@code d} dead.
	 */
	private static final class Batch {

		final String id;

		final boolean failFast;

		final BatchCommand command;

		final String callId;

		/** The members it was created with, then those added while it ran. */
		final List<PreparedCommand> members;

		final Map<String, Character> finished = new LinkedHashMap<>();

		Batch(String id, boolean failFast, BatchCommand command, String callId) {
			this.id = id;
			this.failFast = failFast;
			this.command = command;
			this.callId = callId;
			this.members = new ArrayList<>(command.members());
		}

		long count(char outcome) {
			return this.finished.values().stream().filter((each) -> each == outcome).count();
		}

		/**
		 * Whether the batch ended: every member finished, or one died under fail fast.
		 */
		boolean ended() {
			return this.finished.size() == this.members.size() || (this.failFast && this.finished.containsValue('d'));
		}

		/** Whether every member succeeded. */
		boolean succeeded() {
			return count('s') == this.members.size();
		}

		@Override
		public String toString() {
			return this.id + (this.failFast ? " (fail fast)" : "") + " finished " + this.finished + " of "
					+ this.members.size();
		}

	}

	/** The jobs that members add: one per member queue, named after it. */
	private static final class MemberJobs implements JobDefinitions {

		private final List<JobDefinition> all = QUEUES.stream()
			.map((queue) -> new JobDefinition(queue, queue, 2, Duration.ZERO, JobBackoff.DEFAULT, String.class))
			.toList();

		@Override
		public @Nullable JobDefinition find(String name) {
			return this.all.stream().filter((definition) -> definition.name().equals(name)).findFirst().orElse(null);
		}

		@Override
		public Collection<JobDefinition> all() {
			return this.all;
		}

	}

	private record Held(String queue, ReservedJob job) {

		@Override
		public String toString() {
			return this.job.id() + "#" + this.job.attempt() + " of " + this.queue;
		}

	}

	@SuppressWarnings("rawtypes")
	private static RedisScript<List> script() {
		try {
			return RedisScript.of(new ClassPathResource("batch.lua", BatchOperations.class)
				.getContentAsString(StandardCharsets.UTF_8), List.class);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
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
