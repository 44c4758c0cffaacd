package io.redq.queue.redis.tester;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobPriority;
import io.redq.queue.core.RateLimit;
import io.redq.queue.core.Uniqueness;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.EnqueueOperations;
import io.redq.queue.redis.GateOperations;
import io.redq.queue.redis.Gates;
import io.redq.queue.redis.Lease;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.QueueKeys;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.Reservation;
import io.redq.queue.redis.ResendProtection;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.script.QueueScripts;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.awaitility.Awaitility.await;

/**
 * Drives the queue scripts on a real Redis through a random interleaving of virtual
 * producers, workers and migrators, chosen by a seeded {@link Random} on one thread so
 * that a seed reproduces its run, and checks the invariants of the guarantees page after
 * every step.
 *
 * <p>
 * The tester sees every reply (it is the model of what each job should be); an actor
 * whose reply was "lost" acts as if it had none: a producer re-sends, a worker never
 * starts the jobs it did not see. Leases expire for real: short leases of a few ms, and a
 * step that waits for the Redis clock to pass one before it migrates.
 *
 * @author Redq team
 */
final class ScriptTester {

	static final String QUEUE = "tester";

	private static final Duration LONG_LEASE = Duration.ofSeconds(60);

	private static final RateLimit RATE = new RateLimit(1, Duration.ofMillis(20));

	/** A job with an exclusive key, running limits and a rate limit. */
	private static final String LIMITED = "limited";

	/** A job with running limits only. */
	private static final String COUNTED = "counted";

	private static final Pattern DISPATCH = Pattern.compile("\"payload\":\"d(\\d+)\"");

	private static final Pattern MAX_ATTEMPTS = Pattern.compile("\"maxAttempts\":(\\d+)");

	private static final Pattern PRIORITY = Pattern.compile(
			"^\\{\"createdAt\":-?\\d+,\"availableAt\":-?\\d+,(?:\"priority\":(\\d+),)?(?:\"group\":\"([^\"]+)\",)?");

	/**
	 * The width of a priority level's band of scores in the queued set (see common.lua).
	 */
	private static final long BAND = 1L << 44;

	private static final int TRACE_LENGTH = 40;

	private static final int COMPLETED = 0;

	private static final int FAILED = 1;

	private static final int DIED = 2;

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> SNAPSHOT = RedisScript.of("""
			local time = redis.call('TIME')
			local function range(key)
				return redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
			end
			-- the running sets of the groups, as one
			local function group_running()
				local all = {}
				for i = 23, 25 do
					for _, value in ipairs(range(KEYS[i])) do
						all[#all + 1] = value
					end
				end
				return all
			end
			-- whether each gate that has a line is held: its key taken, or a place in its
			-- running set under an unexpired lease
			local function gates_held()
				local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
				local held = {}
				for _, entry in ipairs(redis.call('ZRANGE', KEYS[19], 0, -1)) do
					local gate = string.match(entry, '^([^%z]*)%z')
					local type = redis.call('TYPE', gate)['ok']
					held[#held + 1] = gate
					held[#held + 1] = ((type == 'string')
						or (type == 'zset' and redis.call('ZCOUNT', gate, '(' .. now, '+inf') > 0)) and '1' or '0'
				end
				return held
			end
			return {tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000),
				redis.call('LRANGE', KEYS[1], 0, -1),
				redis.call('ZRANGE', KEYS[2], '-inf', '(inf', 'BYSCORE', 'WITHSCORES'),
				redis.call('ZRANGE', KEYS[3], '-inf', '(inf', 'BYSCORE', 'WITHSCORES'), range(KEYS[4]),
				redis.call('HGETALL', KEYS[5]), redis.call('HGETALL', KEYS[6]), redis.call('HGETALL', KEYS[7]),
				redis.call('HGETALL', KEYS[8]), redis.call('HGETALL', KEYS[9]),
				{redis.call('GET', KEYS[10]) or '', redis.call('GET', KEYS[11]) or ''},
				range(KEYS[12]), range(KEYS[13]), range(KEYS[14]), redis.call('HGETALL', KEYS[15]), range(KEYS[16]),
				redis.call('HGETALL', KEYS[17]), redis.call('HGETALL', KEYS[18]), group_running(),
				redis.call('ZRANGE', KEYS[19], 0, -1), redis.call('HGETALL', KEYS[20]), range(KEYS[21]),
				redis.call('HGETALL', KEYS[22]), gates_held(), range(KEYS[26]),
				redis.call('ZRANGE', KEYS[2], '+inf', '+inf', 'BYSCORE')}
			""", List.class);

	private final Settings settings;

	private final Random random;

	private final EnqueueOperations producers;

	private final RedisJobQueueOperations operations;

	private final QueueScripts scripts;

	private final ListenerOperations listeners;

	/**
	 * Operations with the scripts from before priority levels on the same queue (see
	 * {@link #olderInstance()}), or {@code null}.
	 */
	private final @Nullable RedisJobQueueOperations older;

	/** The calls of the instance with the older scripts, on lanes of its own. */
	private final ResendProtection olderCalls = new ResendProtection();

	/** The ids of the jobs that the older scripts cancelled, rescheduled or replaced. */
	private final Set<String> takenOutByOlderScripts = new HashSet<>();

	private final StringRedisTemplate redis;

	private final QueueKeys keys;

	private final List<String> snapshotKeys;

	private final Map<Integer, Dispatch> dispatches = new HashMap<>();

	private final List<Worker> workers = new ArrayList<>();

	private final List<Dispatch> lostEnqueueReplies = new ArrayList<>();

	/** Each producer's calls, on lanes of its own. */
	private final List<ResendProtection> producerCalls = new ArrayList<>();

	private final ResendProtection operatorCalls = new ResendProtection();

	private final List<LostCall> lostOperatorReplies = new ArrayList<>();

	/**
	 * The gate holders ({@code id:token}) of runs that started and have not left their
	 * gates: a run of several jobs holds the place its first took until its last leaves.
	 */
	private final Set<String> holding = new HashSet<>();

	/** What the last acknowledgement that left its run's gates handed over. */
	private GateOperations.@Nullable HandOver handOver;

	/** The gate holders of every run that started. */
	private final Set<String> started = new HashSet<>();

	/** The token of the latest run of each id whose start reached Redis. */
	private final Map<String, String> lastStarts = new HashMap<>();

	private final Deque<String> trace = new ArrayDeque<>();

	/** The priority levels that have ready jobs, as the latest check found them. */
	private Set<Integer> levelsWithJobs = Set.of();

	/** The wait of each priority level with ready jobs since it was last reserved. */
	private final Map<Integer, LevelWait> waits = new HashMap<>();

	private int step;

	/** How many places of runs let through at a hand-over stopping containers left. */
	private int placesLeftOnStop;

	/**
	 * Create a tester.
	 * @param operations the operations with the scripts under test
	 * @param older operations with the scripts from before priority levels, run beside
	 * them on the same queue, or {@code null}
	 * @param settings how large a run is
	 * @param seed the seed of the run
	 */
	ScriptTester(RedisJobQueueOperations operations, @Nullable RedisJobQueueOperations older, Settings settings,
			long seed) {
		this.settings = settings;
		this.random = new Random(seed);
		this.operations = operations;
		this.older = older;
		this.scripts = operations.getStore().getScripts();
		this.producers = operations.getEnqueueOperations();
		this.listeners = operations.getListenerOperations();
		this.redis = operations.getStore().getTemplate();
		this.keys = operations.getStore().keys(QUEUE);
		// the gate keys of the two exclusive keys differ only in the lock
		List<String> gateKeys = this.keys.gates(gatesWithKey("x0"));
		List<String> exclusiveKeys = List.of(gateKeys.get(1), this.keys.gates(gatesWithKey("x1")).get(1));
		this.snapshotKeys = List.of(this.keys.ready(), this.keys.delayed(), this.keys.reserved(), this.keys.dead(),
				this.keys.jobs(), this.keys.attempts(), this.keys.leases(), this.keys.successors(), this.keys.errors(),
				exclusiveKeys.get(0), exclusiveKeys.get(1), gateKeys.get(2), gateKeys.get(3), gateKeys.get(4),
				this.keys.stale(), this.keys.queued(), this.keys.levels(), this.keys.fair(), this.keys.lines(),
				this.keys.parked(), this.keys.holding(), this.keys.held(), this.keys.gates(gatesOfGroup("t0")).get(0),
				this.keys.gates(gatesOfGroup("t1")).get(0), this.keys.gates(gatesOfGroup("t2")).get(0),
				this.keys.gates(countedGates(null)).get(2));
		for (int i = 0; i < settings.producers(); i++) {
			this.producerCalls.add(new ResendProtection());
		}
		for (int i = 0; i < settings.workers(); i++) {
			this.workers.add(new Worker(i));
		}
	}

	/**
	 * Run the steps, checking the invariants after each.
	 * @return the first invariant violated, or {@code null}
	 */
	@Nullable Violation run() {
		try {
			for (this.step = 1; this.step <= this.settings.steps(); this.step++) {
				while (!nextStep()) {
					// the chosen step had nothing to act on: choose again
				}
				checkState();
			}
			return null;
		}
		catch (ViolationException ex) {
			return new Violation(ex.invariant, this.step, ex.getMessage(), List.copyOf(this.trace));
		}
	}

	int steps() {
		return this.step - 1;
	}

	private boolean nextStep() {
		if (this.older != null && this.random.nextInt(25) == 0) {
			return olderInstance();
		}
		int choice = this.random.nextInt(100);
		if (choice < 15) {
			return produce();
		}
		if (choice < 17) {
			return resendLostEnqueue();
		}
		if (choice < 19) {
			return cancel();
		}
		if (choice < 21) {
			return reschedule();
		}
		if (choice < 22) {
			return revive();
		}
		if (choice < 24) {
			return resendLostOperatorCall();
		}
		if (choice < 38) {
			return reserve(anyWorker(), false);
		}
		if (choice < 43) {
			return reserve(anyWorker(), true);
		}
		if (choice < 58) {
			return start(anyWorker());
		}
		if (choice < 77) {
			return finish(anyWorker());
		}
		if (choice < 82) {
			return extend(anyWorker());
		}
		if (choice < 85) {
			return release(anyWorker());
		}
		if (choice < 90) {
			migrate("migrator " + this.random.nextInt(this.settings.migrators()));
			return true;
		}
		if (choice < 91) {
			return purge();
		}
		if (choice < 98) {
			return awaitExpiry();
		}
		return die(anyWorker());
	}

	private Worker anyWorker() {
		return this.workers.get(this.random.nextInt(this.workers.size()));
	}

	private boolean enabled(Fault fault, double probability) {
		return this.settings.faults().contains(fault) && this.random.nextDouble() < probability;
	}

	// producers

	private boolean produce() {
		return produce(null);
	}

	/**
	 * A producer dispatches a new job, or one that replaces the job at the given id.
	 */
	private boolean produce(@Nullable String replacing) {
		int producer = this.random.nextInt(this.settings.producers());
		int number = this.dispatches.size() + 1;
		Job job = newJob(number);
		if (replacing != null) {
			// the same job as a REPLACE dispatch (kind 3) at that id
			job = new Job(new EnqueueCommand(replacing, job.due(), DuplicatePolicy.REPLACE, job.command().body()), 3,
					job.maxAttempts(), job.gated(), job.due(), job.level(), job.group());
		}
		ResendProtection calls = this.producerCalls.get(producer);
		ResendProtection.Call call = calls.begin(this.keys);
		List<Job> sent = new ArrayList<>(List.of(job));
		// a third of the jobs push.lua takes go with others in one call, as dispatchAll
		// sends them
		boolean pushed = job.kind() == 0 && job.due() == Due.NOW && job.level() == JobPriority.DEFAULT
				&& job.group() >= 3;
		int companions = (pushed && this.random.nextInt(3) == 0) ? 1 + this.random.nextInt(2) : 0;
		for (int i = 1; i <= companions; i++) {
			sent.add(new Job(
					EnqueueCommand
						.withGeneratedId("g" + (number + i), Due.NOW,
								"\"job\":\"plain\",\"maxAttempts\":" + job.maxAttempts() + ",\"payload\":\"d"
										+ (number + i) + "\"}"),
					0, job.maxAttempts(), false, Due.NOW, JobPriority.DEFAULT, 3));
		}
		// a quarter of the other calls carry up to three more jobs of any kind, policy,
		// due time, level, group and gates, as concurrent dispatches share a call: each
		// at an id of its own in the call, whose state before the call is its own
		if (companions == 0 && this.random.nextInt(4) == 0) {
			for (int i = 1 + this.random.nextInt(3); i > 0; i--) {
				Job companion = newJob(number + sent.size());
				if (sent.stream().noneMatch((other) -> other.command().id().equals(companion.command().id()))) {
					sent.add(companion);
				}
			}
		}
		List<EnqueueCommand> commands = sent.stream().map(Job::command).toList();
		List<Dispatch> batch = new ArrayList<>();
		for (int i = 0; i < sent.size(); i++) {
			Job each = sent.get(i);
			Dispatch dispatch = new Dispatch(number + i, each.command(), each.maxAttempts(), each.gated(), calls, call,
					commands);
			this.dispatches.put(dispatch.number, dispatch);
			batch.add(dispatch);
		}
		Dispatch dispatch = batch.get(0);
		List<List<Dispatch>> before = batch.stream().map((sending) -> storedAt(sending.command.id())).toList();
		List<Outcome> results = enqueue(dispatch);
		dispatch.replied = results;
		for (int i = 0; i < batch.size(); i++) {
			stored(batch.get(i), before.get(i), results.get(i));
		}
		String lost = "";
		if (enabled(Fault.ENQUEUE_RESENT_AT_ONCE, 0.2)) {
			lost = ", reply lost, re-sent at once: " + resend(dispatch);
		}
		else if (enabled(Fault.ENQUEUE_RESENT_LATER, 0.3)) {
			this.lostEnqueueReplies.add(dispatch);
			lost = ", reply lost";
		}
		if (!this.lostEnqueueReplies.contains(dispatch)) {
			dispatch.calls.end(dispatch.call);
		}
		trace("producer " + producer + " enqueues "
				+ batch.stream().map((each) -> each + " as " + each.command.id()).toList() + " ("
				+ sent.stream().map(Job::describe).toList() + ") in one call: " + results + lost);
		return true;
	}

	/**
	 * Make a job of any kind, policy, due time, level, group and gates.
	 */
	private Job newJob(int number) {
		int kind = this.random.nextInt(5);
		int gate = this.random.nextInt(20);
		// many jobs of the kind with running limits only, so that several wait in a line
		// and a leave lets a run of them through
		boolean gated = gate < 12;
		int maxAttempts = 1 + this.random.nextInt(3);
		Due due = (this.random.nextInt(10) < 7) ? Due.NOW : Due.after(Duration.ofMillis(1 + this.random.nextInt(30)));
		// half the jobs at the default level, the others at any level
		int level = (this.random.nextBoolean()) ? JobPriority.DEFAULT : this.random.nextInt(JobPriority.HIGHEST + 1);
		// a third of the jobs in one of three groups
		int group = this.random.nextInt(9);
		String body = ((level != JobPriority.DEFAULT) ? "\"priority\":" + level + "," : "")
				+ ((group < 3) ? "\"group\":\"t" + group + "\"," : "") + "\"job\":\""
				+ (!gated ? "plain" : (gate < 3) ? LIMITED : COUNTED) + "\",\"maxAttempts\":" + maxAttempts
				+ ",\"payload\":\"d" + number + "\"}";
		String id = (kind == 0) ? "g" + number : "c" + this.random.nextInt(this.settings.callerIds());
		EnqueueCommand command = switch (kind) {
			case 0 -> EnqueueCommand.withGeneratedId(id, due, body);
			case 1 -> new EnqueueCommand(id, due, DuplicatePolicy.KEEP, body);
			case 2 -> new EnqueueCommand(id, due, DuplicatePolicy.KEEP, Uniqueness.UNTIL_STARTED, body);
			case 3 -> new EnqueueCommand(id, due, DuplicatePolicy.REPLACE, body);
			default -> new EnqueueCommand(id, due, DuplicatePolicy.REPLACE, Uniqueness.UNTIL_STARTED, body);
		};
		return new Job(command, kind, maxAttempts, gated, due, level, group);
	}

	/**
	 * Record what the first enqueue of a dispatch did.
	 */
	private void stored(Dispatch dispatch, List<Dispatch> before, Outcome result) {
		settle(before, State.REPLACED);
		boolean stored = result != Outcome.KEPT && result != Outcome.DROPPED;
		dispatch.state = stored ? State.LIVE : State.DROPPED;
		String id = dispatch.command.id();
		if (result == Outcome.QUEUED) {
			String successor = this.redis.<String, String>opsForHash().get(this.keys.successors(), id);
			dispatch.notBefore = Long.parseLong(successor.substring(0, successor.indexOf(':', 1)));
		}
		else if (stored) {
			Long scheduled = scheduled(id);
			dispatch.notBefore = (scheduled != null) ? scheduled : 0;
		}
	}

	/**
	 * Return when a job that a dispatch just stored, or a reschedule or failure just
	 * moved, is due: its score in delayed, or {@code null} for a ready one. None of them
	 * parks a job (only an admission does, of a job due already): one parked here is a
	 * violation. Data model 6 kept it in delayed at +inf, read as a due time no
	 * reservation reaches; model 7 keeps it out of delayed, which would read as ready.
	 */
	private @Nullable Long scheduled(String id) {
		String entry = this.redis.<String, String>opsForHash().get(this.keys.parked(), id);
		check(entry == null || this.redis.opsForZSet().score(this.keys.lines(), entry) == null, Invariant.PARKED,
				() -> id + " is parked right after a dispatch, reschedule or failure moved it: " + entry);
		Double scheduled = this.redis.opsForZSet().score(this.keys.delayed(), id);
		return (scheduled != null) ? scheduled.longValue() : null;
	}

	/**
	 * Enqueue as its dispatch: a second call is what Lettuce sends when it re-sends it.
	 */
	/**
	 * Send the call of a dispatch again, as Lettuce does after a lost reply: it gets the
	 * reply of its first run.
	 */
	private List<Outcome> resend(Dispatch dispatch) {
		List<Outcome> reply = enqueue(dispatch);
		check(reply.equals(dispatch.replied), Invariant.RUN_AGAIN_BY_RESEND,
				() -> "the enqueue of d" + dispatch.number + " re-sent got " + reply + ", first " + dispatch.replied);
		return reply;
	}

	private List<Outcome> enqueue(Dispatch dispatch) {
		return this.producers.enqueue(QUEUE, dispatch.call, dispatch.sent)
			.stream()
			.map(DispatchResult::outcome)
			.toList();
	}

	private static String kindName(int kind) {
		return switch (kind) {
			case 0 -> "generated id";
			case 1 -> "KEEP";
			case 2 -> "KEEP, UNTIL_STARTED";
			case 3 -> "REPLACE";
			default -> "REPLACE, UNTIL_STARTED";
		};
	}

	/**
	 * Return the dispatches stored at an id: its job and the successor queued behind it.
	 */
	private List<Dispatch> storedAt(String id) {
		List<Dispatch> stored = new ArrayList<>();
		for (String key : List.of(this.keys.jobs(), this.keys.successors())) {
			String value = this.redis.<String, String>opsForHash().get(key, id);
			if (value != null) {
				stored.add(dispatchOf(value));
			}
		}
		return stored;
	}

	/**
	 * Give the live dispatches of the given ones that a call removed their end.
	 */
	private void settle(List<Dispatch> before, State end) {
		for (Dispatch dispatch : before) {
			if (dispatch.state == State.LIVE && !storedAt(dispatch.command.id()).contains(dispatch)) {
				dispatch.state = end;
			}
		}
	}

	// operators

	/** Retries a dead job with fresh attempts. */
	private boolean revive() {
		Snapshot snapshot = snapshot();
		if (snapshot.dead.isEmpty()) {
			return false;
		}
		List<String> dead = new ArrayList<>(snapshot.dead.keySet());
		dead.sort(null);
		String id = dead.get(this.random.nextInt(dead.size()));
		String envelope = snapshot.jobs.get(id);
		long revived = operate("retry of dead " + id, this.scripts.revive(), List.of(), List.of("retry", "0", id));
		if (revived == 1 && envelope != null) {
			Dispatch dispatch = dispatchOf(envelope);
			dispatch.state = State.LIVE;
			dispatch.notBefore = 0;
			dispatch.acceptedFailures = 0;
			dispatch.reservations = 0;
			dispatch.runsStarted = 0;
			// the run that died no longer completes the retried job (see revive.lua)
			this.lastStarts.remove(id);
		}
		trace("an operator retries dead " + id + ": " + revived);
		return true;
	}

	private boolean cancel() {
		String id = "c" + this.random.nextInt(this.settings.callerIds());
		List<Dispatch> before = storedAt(id);
		boolean cancelled = operate("cancel of " + id, this.scripts.cancel(), List.of(this.keys.progress(id)),
				List.of(id)) == 1;
		settle(before, State.CANCELLED);
		trace("an operator cancels " + id + " " + before + ": " + cancelled);
		return true;
	}

	private boolean reschedule() {
		String id = "c" + this.random.nextInt(this.settings.callerIds());
		Due due = this.random.nextBoolean() ? Due.NOW : Due.after(Duration.ofMillis(1 + this.random.nextInt(30)));
		boolean moved = operate("reschedule of " + id, this.scripts.reschedule(), List.of(),
				List.of(id, "d", Long.toString(due.millis()))) != 0;
		if (moved) {
			String envelope = this.redis.<String, String>opsForHash().get(this.keys.jobs(), id);
			Long scheduled = scheduled(id);
			dispatchOf(envelope).notBefore = (scheduled != null) ? scheduled : 0;
		}
		trace("an operator reschedules " + id + " " + storedAt(id) + " to " + due + ": " + moved);
		return true;
	}

	/**
	 * Purges the queue: every job goes in one step, whatever runs or waits, and a re-sent
	 * purge deletes no job dispatched since.
	 */
	private boolean purge() {
		// no gate keys: the gates of runs still running stay, as a SCAN that missed them
		// would leave them
		operate("purge", this.scripts.purge(), List.of(), List.of("0"));
		List<Integer> purged = new ArrayList<>();
		for (Dispatch dispatch : this.dispatches.values()) {
			if (dispatch.state == State.LIVE) {
				dispatch.state = State.PURGED;
				purged.add(dispatch.number);
			}
		}
		// the statistics go with the queue
		this.dispatches.values().forEach((each) -> Arrays.fill(each.counted, 0));
		trace("an operator purges the queue: " + purged.stream().sorted().map((number) -> "d" + number).toList());
		return true;
	}

	private boolean resendLostEnqueue() {
		if (this.lostEnqueueReplies.isEmpty()) {
			return false;
		}
		Dispatch dispatch = this.lostEnqueueReplies.remove(this.random.nextInt(this.lostEnqueueReplies.size()));
		trace("Lettuce re-sends the enqueue of d" + dispatch.number + " (" + dispatch.state + "): " + resend(dispatch));
		dispatch.calls.end(dispatch.call);
		return true;
	}

	/**
	 * Run an operator's call that changes the queue; its reply may be lost, and the call
	 * re-sent later.
	 */
	private long operate(String what, RedisScript<Long> script, List<String> extraKeys, List<String> args) {
		ResendProtection.Call call = this.operatorCalls.begin(this.keys);
		Long reply = this.operations.getStore().runOnce(script, QUEUE, call, extraKeys, args);
		if (enabled(Fault.OPERATOR_RESENT_LATER, 0.3)) {
			this.lostOperatorReplies.add(new LostCall(what, call, script, extraKeys, args, reply));
			trace("(the reply of the next call is lost)");
		}
		else {
			this.operatorCalls.end(call);
		}
		return reply;
	}

	private boolean resendLostOperatorCall() {
		if (this.lostOperatorReplies.isEmpty()) {
			return false;
		}
		LostCall lost = this.lostOperatorReplies.remove(this.random.nextInt(this.lostOperatorReplies.size()));
		Long reply = this.operations.getStore().runOnce(lost.script, QUEUE, lost.call, lost.extraKeys, lost.args);
		check(lost.reply.equals(reply), Invariant.RUN_AGAIN_BY_RESEND,
				() -> "the re-sent " + lost.what + " got " + reply + ", its first reply was " + lost.reply);
		this.operatorCalls.end(lost.call);
		trace("Lettuce re-sends the " + lost.what + ": " + reply);
		return true;
	}

	// an instance with the scripts from before priority levels

	/**
	 * An instance with the scripts from before priority levels cancels, reschedules or
	 * replaces a job of a caller's id (see "Priorities" in {@code common.lua}): those
	 * scripts know neither levels nor groups, and take a job out of line by counting its
	 * entry stale, which leaves its member of queued, its count in its group and its kept
	 * place behind. It leaves the jobs with gates alone: they came with data model 5,
	 * whose queues those scripts refuse unless a test gives them the model (their lines
	 * are unknown to them).
	 */
	private boolean olderInstance() {
		String id = "c" + this.random.nextInt(this.settings.callerIds());
		String stored = this.redis.<String, String>opsForHash().get(this.keys.jobs(), id);
		// this leaves every parked job alone too, and every woken one, since only a job
		// with gates parks: those scripts refuse a queue of data model 7 and know no
		// lines, so they would take a parked job, in none of the sets they know, for a
		// ready one, and cancel, reschedule or replace it as such
		if (stored != null && dispatchOf(stored).gated) {
			return false;
		}
		RedisJobQueueOperations older = Objects.requireNonNull(this.older);
		QueueScripts scripts = older.getStore().getScripts();
		List<Dispatch> before = storedAt(id);
		this.takenOutByOlderScripts.add(id);
		int action = this.random.nextInt(3);
		if (action == 0) {
			boolean cancelled = olderCall(scripts.cancel(), List.of(id)) == 1;
			settle(before, State.CANCELLED);
			trace("the older instance cancels " + id + " " + before + ": " + cancelled);
		}
		else if (action == 1) {
			// after a delay: one that has passed would put the job into the ready list,
			// at the default level whatever its own
			Due due = Due.after(Duration.ofMillis(1 + this.random.nextInt(30)));
			boolean moved = olderCall(scripts.reschedule(), List.of(id, "d", Long.toString(due.millis()))) != 0;
			if (moved) {
				String envelope = this.redis.<String, String>opsForHash().get(this.keys.jobs(), id);
				Long scheduled = scheduled(id);
				dispatchOf(envelope).notBefore = (scheduled != null) ? scheduled : 0;
			}
			trace("the older instance reschedules " + id + " " + before + " to " + due + ": " + moved);
		}
		else {
			// a job of the default level without a group: the only one those scripts make
			int number = this.dispatches.size() + 1;
			int maxAttempts = 1 + this.random.nextInt(3);
			EnqueueCommand command = new EnqueueCommand(id, Due.NOW, DuplicatePolicy.REPLACE,
					"\"job\":\"plain\",\"maxAttempts\":" + maxAttempts + ",\"payload\":\"d" + number + "\"}");
			ResendProtection.Call call = this.olderCalls.begin(this.keys);
			Dispatch dispatch = new Dispatch(number, command, maxAttempts, false, this.olderCalls, call,
					List.of(command));
			dispatch.byOlderScripts = true;
			this.dispatches.put(number, dispatch);
			Outcome result = older.getEnqueueOperations().enqueue(QUEUE, call, List.of(command)).get(0).outcome();
			this.olderCalls.end(call);
			stored(dispatch, before, result);
			trace("the older instance enqueues d" + number + " as " + id + " (REPLACE, max " + maxAttempts + "): "
					+ result);
		}
		return true;
	}

	private long olderCall(RedisScript<Long> script, List<String> args) {
		ResendProtection.Call call = this.olderCalls.begin(this.keys);
		Long reply = Objects.requireNonNull(this.older).getStore().runOnce(script, QUEUE, call, args);
		this.olderCalls.end(call);
		return reply;
	}

	// workers

	private boolean reserve(Worker worker, boolean shortAndStartAtOnce) {
		boolean shortLease = shortAndStartAtOnce || ((this.settings.faults().contains(Fault.RESERVE_REPLY_LOST)
				|| this.settings.faults().contains(Fault.WORKER_DIES)) && this.random.nextBoolean());
		Duration lease = shortLease ? Duration.ofMillis(5 + this.random.nextInt(15)) : LONG_LEASE;
		int max = shortAndStartAtOnce ? 1 : 1 + this.random.nextInt(3);
		if (worker.held.size() + max > 4) {
			return false;
		}
		Reservation reservation = this.listeners.reserve(QUEUE, max, lease);
		boolean lost = !shortAndStartAtOnce && enabled(Fault.RESERVE_REPLY_LOST, 0.2);
		List<String> ids = new ArrayList<>();
		for (ReservedJob job : reservation.jobs()) {
			ids.add(reserved(worker.held, job, lease, reservation.redisTime(), lost));
		}
		trace(worker + " reserves " + max + " for " + lease.toMillis() + " ms: " + ids + (lost ? ", reply lost" : ""));
		checkShares(reservation);
		if (shortAndStartAtOnce && !worker.held.isEmpty() && !reservation.jobs().isEmpty()) {
			startHeld(worker, worker.held.remove(worker.held.size() - 1));
		}
		return true;
	}

	/**
	 * Check and record a job reserved for a worker, which holds it unless the reply was
	 * lost.
	 * @return the job as the trace shows it
	 */
	private String reserved(List<Held> held, ReservedJob job, Duration lease, long redisTime, boolean lost) {
		Dispatch dispatch = dispatchOf(job.envelope());
		dispatch.reservations++;
		// a reserved job counts as started: its worker starts it within moments
		this.lastStarts.put(job.id(), job.token());
		check(job.attempt() <= dispatch.maxAttempts, Invariant.ATTEMPTS,
				() -> job.id() + " reserved at attempt " + job.attempt() + " of " + dispatch.maxAttempts);
		check(job.attempt() > dispatch.acceptedFailures, Invariant.FINISHED_RUN_LOST, () -> job.id()
				+ " reserved at attempt " + job.attempt() + " after " + dispatch.acceptedFailures + " failed runs");
		check(redisTime >= dispatch.notBefore, Invariant.EARLY,
				() -> job.id() + " reserved at " + redisTime + ", due at " + dispatch.notBefore);
		if (!lost) {
			held.add(new Held(job, dispatch, lease));
		}
		return job.id() + "=d" + dispatch.number + "@" + job.attempt();
	}

	private boolean start(Worker worker) {
		if (worker.held.isEmpty()) {
			return false;
		}
		startHeld(worker, worker.held.remove(this.random.nextInt(worker.held.size())));
		return true;
	}

	private void startHeld(Worker worker, Held held) {
		ReservedJob job = held.job;
		Lease holder = (held.holder != null) ? held.holder : job.lease();
		// a job of a run starts as a job without gates, under the place its run took, as
		// a container does
		boolean inRun = held.holder != null || !held.run.isEmpty();
		Gates gates = !held.dispatch.gated ? null : (!inRun && limitsLifted(job)) ? lifted(gates(job)) : gates(job);
		if (gates != null && !inRun) {
			long admitted = this.listeners.getGateOperations().admit(QUEUE, job.lease(), gates, LONG_LEASE);
			String resent = "";
			if (enabled(Fault.ADMIT_RESENT, 0.3)) {
				long first = admitted;
				admitted = this.listeners.getGateOperations().admit(QUEUE, job.lease(), gates, LONG_LEASE);
				resent = " (reply lost: " + first + "; re-sent)";
			}
			trace(worker + " admits " + job.id() + "@" + job.attempt() + " " + job.token() + resent + ": " + admitted);
			if (admitted != 0) {
				return;
			}
			this.lastStarts.put(job.id(), job.token());
			for (Worker each : this.workers) {
				for (Run other : each.running) {
					check(other.gates == null || gates.exclusiveKey() == null
							|| !gates.exclusiveKey().equals(other.gates.exclusiveKey())
							|| !holdsLease(other.job.lease()), Invariant.GATES,
							() -> job.id() + " admitted under exclusive key " + gates.exclusiveKey() + " while " + other
									+ " holds it and its lease");
				}
			}
			this.holding.add(holder(job));
			this.started.add(holder(job));
		}
		else {
			if (held.lease().equals(LONG_LEASE) && this.random.nextBoolean()) {
				// as a worker does while most of the lease it was reserved with is left
				trace(worker + " starts " + job.id() + "@" + job.attempt() + " " + job.token()
						+ " on the lease it was reserved with");
			}
			else {
				// the run gets the lease it was reserved with, so that short leases
				// still expire
				boolean kept = this.listeners.getLeaseOperations()
					.start(QUEUE, List.of(job.lease()), held.lease())
					.isEmpty();
				if (kept) {
					this.lastStarts.put(job.id(), job.token());
				}
				boolean lost = enabled(Fault.START_REPLY_LOST, 0.2);
				trace(worker + " starts " + job.id() + "@" + job.attempt() + " " + job.token() + ": "
						+ (kept ? "lease kept" : "lease lost") + (lost ? ", reply lost: not started" : ""));
				if (!kept || lost) {
					if (inRun) {
						// it ends before it ran: its run goes on without it
						handOn(worker, new Run(job, held.dispatch, gates, holder, held.run));
					}
					return;
				}
			}
			check(held.holder == null || this.holding.contains(holder(holder)), Invariant.GATES,
					() -> job.id() + " starts in the run of " + holder(holder) + ", which left its place");
		}
		Dispatch dispatch = held.dispatch;
		// a worker that stalled past its lease may still start the job: that run again is
		// documented
		check(dispatch.state == State.LIVE || !holdsLease(job.lease()), Invariant.RUN_AGAIN_BY_RESEND,
				() -> "a run of d" + dispatch.number + " (" + job.id() + ") starts at attempt " + job.attempt()
						+ " though the dispatch is " + dispatch.state);
		dispatch.runsStarted++;
		worker.running.add(new Run(job, dispatch, gates, holder, held.run));
		trace(worker + " starts " + job.id() + "=d" + dispatch.number + "@" + job.attempt());
	}

	/**
	 * Whether the running limits of a job woken for a freed place (its entry kept in
	 * parked, out of its line) were lifted before its admission.
	 */
	private boolean limitsLifted(ReservedJob job) {
		if (!this.settings.faults().contains(Fault.LIMIT_LIFTED)) {
			return false;
		}
		String entry = this.redis.<String, String>opsForHash().get(this.keys.parked(), job.id());
		boolean lifted = entry != null && this.redis.opsForZSet().score(this.keys.lines(), entry) == null
				&& enabled(Fault.LIMIT_LIFTED, 0.5);
		if (lifted) {
			trace("the running limits of " + job.id() + ", woken, are lifted before its admission");
		}
		return lifted;
	}

	private static Gates lifted(Gates gates) {
		return new Gates(gates.exclusiveKey(), gates.job(), 0, 0, gates.rateLimit(), gates.group(), 0);
	}

	private boolean finish(Worker worker) {
		if (worker.running.isEmpty()) {
			return false;
		}
		Run run = worker.running.remove(this.random.nextInt(worker.running.size()));
		Lease lease = run.job.lease();
		int outcome = this.random.nextInt(100);
		Duration leaving = null;
		GateOperations.HandOver handOver = null;
		boolean handOverLost = false;
		if (outcome < 60) {
			boolean holds = holdsLease(lease);
			// a run that finished late is accepted unless a run of its job started since
			String stored = this.redis.<String, String>opsForHash().get(this.keys.jobs(), lease.id());
			boolean exists = stored != null;
			// a job that a new dispatch replaced, or took the id of, is not the one that
			// ran
			boolean late = !holds && lease.token().equals(this.lastStarts.get(lease.id())) && exists
					&& dispatchOf(stored) == run.dispatch;
			// a run with gates that took its place and is the last of its run is
			// acknowledged with its leave, as a container does, or before it
			leaving = (run.gates != null && run.rest.isEmpty() && run.holder.equals(lease) && this.random.nextBoolean())
					? handOverLease(true) : null;
			List<String> refused = acknowledge(run, leaving);
			handOver = this.handOver;
			boolean accepted = !refused.contains(lease.id());
			if (accepted && exists) {
				run.dispatch.counted[COMPLETED]++;
				if (run.dispatch.state == State.DEAD) {
					// the run it died of completed: its death and last failed attempt are
					// taken back
					run.dispatch.counted[FAILED]--;
					run.dispatch.counted[DIED]--;
				}
			}
			check(accepted == (!exists || holds || late), Invariant.FINISHED_RUN_LOST,
					() -> "the ack of " + run + " was " + (accepted ? "accepted" : "refused") + "; it held its lease: "
							+ holds + ", no worker reserved it since: " + late);
			String resent = "";
			if (enabled(Fault.ACK_RESENT, 0.3)) {
				resent = " (reply lost: " + refused + "; re-sent)";
				handOverLost = handOver != null;
				refused = acknowledge(run, leaving);
			}
			if (holds || (exists && late)) {
				run.dispatch.state = State.COMPLETED;
			}
			trace(worker + " acks " + run + resent + ": refused " + refused + (holds ? "" : ", lease lost"));
		}
		else {
			// as the error handler does: the last attempt is not retried
			boolean dies = outcome >= 85 || run.job.attempt() >= run.dispatch.maxAttempts;
			Duration retry = dies ? null : Duration.ofMillis((outcome < 70) ? 0 : 1 + this.random.nextInt(30));
			boolean failed = this.listeners.getLeaseOperations().fail(QUEUE, lease, "failed", retry);
			// read before a re-sent fail; a job whose lease was lost belongs to another
			// run, whose admission may have parked it
			Long due = failed ? scheduled(lease.id()) : null;
			String resent = "";
			if (enabled(Fault.FAIL_RESENT, 0.3)) {
				resent = " (reply lost: " + failed + "; re-sent)";
				this.listeners.getLeaseOperations().fail(QUEUE, lease, "failed", retry);
			}
			if (failed) {
				run.dispatch.acceptedFailures++;
				run.dispatch.counted[FAILED]++;
				if (dies) {
					run.dispatch.state = State.DEAD;
					run.dispatch.counted[DIED]++;
				}
				else if (due != null) {
					run.dispatch.notBefore = due;
				}
			}
			trace(worker + " fails " + run + ((retry != null) ? ", retry in " + retry.toMillis() + " ms" : ", dead")
					+ resent + ": " + failed);
		}
		if (leaving != null) {
			tookOver(worker, run, handOver, leaving, handOverLost);
		}
		else {
			handOn(worker, run);
		}
		return true;
	}

	/**
	 * Go on with the next job of a run that ended, which its worker starts next under the
	 * run's place; the last leaves it.
	 */
	private void handOn(Worker worker, Run run) {
		if (run.rest.isEmpty()) {
			leaveGates(worker, run, true);
			return;
		}
		Held next = run.rest.get(0);
		worker.held.add(new Held(next.job, next.dispatch, next.lease, run.holder,
				new ArrayList<>(run.rest.subList(1, run.rest.size())), run.gates));
		trace(worker + " goes on with " + next + " in the run of " + holder(run.holder));
	}

	/**
	 * Acknowledge a run, with the leave of its gates when a hand-over lease is given,
	 * which keeps what it handed over in {@link #handOver}.
	 * @return the refused ids
	 */
	private List<String> acknowledge(Run run, @Nullable Duration leaving) {
		if (leaving == null) {
			return this.listeners.getLeaseOperations().ack(QUEUE, List.of(run.job.lease()));
		}
		GateOperations.Completion completion = this.listeners.getGateOperations()
			.completeAndLeaveGates(QUEUE, run.job.lease(), run.gates, leaving, runSize());
		this.handOver = completion.next();
		return completion.refused() ? List.of(run.job.id()) : List.of();
	}

	/**
	 * Return the lease a leaving run takes the first job woken with: none (every job
	 * woken is made ready), short or long, as a container does.
	 */
	private Duration handOverLease(boolean running) {
		int choice = this.random.nextInt(3);
		return (!running || choice == 0) ? Duration.ZERO
				: (choice == 1) ? LONG_LEASE : Duration.ofMillis(5 + this.random.nextInt(15));
	}

	/**
	 * Return how many more jobs may join the run of a job that a leave hands over: a few,
	 * so that runs interleave with the other steps.
	 */
	private int runSize() {
		return this.random.nextInt(5);
	}

	/**
	 * Leave the gates of a run under its place's lease; a worker whose container runs
	 * takes the first job woken, with a short or a long lease, as a container does, or
	 * lets every job woken be ready.
	 */
	private void leaveGates(Worker worker, Run run, boolean running) {
		if (run.gates != null) {
			Duration lease = handOverLease(running);
			int runSize = runSize();
			GateOperations.HandOver handOver = this.listeners.getGateOperations()
				.leaveGates(QUEUE, run.holder, run.gates, lease, runSize);
			boolean lost = false;
			if (enabled(Fault.HOLD_RESENT, 0.3)) {
				lost = handOver != null;
				this.listeners.getGateOperations().leaveGates(QUEUE, run.holder, run.gates, lease, runSize);
				trace(worker + " leaves the gates of " + run + " (re-sent)");
			}
			tookOver(worker, run, handOver, lease, lost);
		}
	}

	/**
	 * Record that a run left its gates, and the job its leave reserved for the worker
	 * with the jobs that joined its run (a reply lost: for none).
	 */
	private void tookOver(Worker worker, Run run, GateOperations.@Nullable HandOver handOver, Duration lease,
			boolean lost) {
		ReservedJob next = (handOver != null) ? handOver.job() : null;
		this.holding.remove(holder(run.holder));
		if (handOver != null && handOver.admitted()) {
			// let through the gates it shares with the run that left, whether or not
			// the reply reaches the worker: it holds them under its lease
			this.holding.add(holder(next));
			this.started.add(holder(next));
		}
		if (next != null) {
			long redisTime = snapshotTime();
			List<Held> taken = new ArrayList<>();
			String first = reserved(taken, next, lease, redisTime, lost);
			List<String> joined = handOver.run()
				.stream()
				.map((job) -> reserved(taken, job, lease, redisTime, lost))
				.toList();
			if (!taken.isEmpty()) {
				Held held = taken.remove(0);
				if (handOver.admitted()) {
					held = new Held(held.job, held.dispatch, held.lease, null, held.run, run.gates);
				}
				held.run.addAll(taken);
				worker.held.add(held);
			}
			trace(worker + " leaves the gates of " + run + " and takes " + first + " for " + lease.toMillis() + " ms"
					+ (handOver.admitted() ? ", let through its gates" : "")
					+ (joined.isEmpty() ? "" : ", run " + joined) + (lost ? ", reply lost" : ""));
		}
		replaceAWokenJob();
	}

	/**
	 * A producer's {@code REPLACE} dispatch races a leave or a migration: it replaces a
	 * job woken for the place freed, while the job is ready and no worker admitted it.
	 */
	private void replaceAWokenJob() {
		if (!enabled(Fault.WOKEN_JOB_REPLACED, 0.5)) {
			return;
		}
		// the model first learns what the step did (a job the migrator buried, which
		// the dispatch must not take for a live one it replaces)
		checkState();
		Snapshot snapshot = snapshot();
		Set<String> inLine = new HashSet<>();
		snapshot.lines.forEach((entry) -> inLine.add(entry.substring(entry.lastIndexOf('\0') + 1)));
		snapshot.parked.keySet()
			.stream()
			.filter((id) -> !inLine.contains(id) && snapshot.ready.contains(id))
			.sorted()
			.findFirst()
			.ifPresent((id) -> {
				trace("a dispatch races the wake-up of " + id);
				produce(id);
			});
	}

	private boolean extend(Worker worker) {
		List<Lease> waiting = notStarted(worker);
		List<Lease> started = worker.running.stream().map((run) -> run.job.lease()).toList();
		if (waiting.isEmpty() && started.isEmpty()) {
			return false;
		}
		// the renewal confirms the started runs
		List<String> lost = this.listeners.getLeaseOperations().extend(QUEUE, started, waiting, LONG_LEASE, LONG_LEASE);
		if (enabled(Fault.EXTEND_RESENT, 0.3)) {
			lost = this.listeners.getLeaseOperations().extend(QUEUE, started, waiting, LONG_LEASE, LONG_LEASE);
		}
		for (Run run : worker.running) {
			if (run.gates != null) {
				this.listeners.getGateOperations().holdGates(QUEUE, run.holder, run.gates, LONG_LEASE);
				if (enabled(Fault.HOLD_RESENT, 0.3)) {
					this.listeners.getGateOperations().holdGates(QUEUE, run.holder, run.gates, LONG_LEASE);
				}
			}
		}
		trace(worker + " extends " + started.size() + " started and " + waiting.size() + " waiting leases: lost "
				+ lost);
		return true;
	}

	/**
	 * Return the leases of the jobs a worker holds and has not started: those reserved
	 * and the later jobs of its runs.
	 */
	private static List<Lease> notStarted(Worker worker) {
		List<Lease> leases = new ArrayList<>();
		for (Held held : worker.held) {
			leases.add(held.job.lease());
			held.run.forEach((joined) -> leases.add(joined.job.lease()));
		}
		worker.running.forEach((run) -> run.rest.forEach((joined) -> leases.add(joined.job.lease())));
		return leases;
	}

	/**
	 * The worker's container stops: jobs not started go back, the later jobs of its runs
	 * too (a run's running job is its last, which leaves the place), running ones are
	 * interrupted. Then it leaves the places of the runs it was let through and did not
	 * start, as {@code JobWorkerPool} does, unless its instance dies or its leave fails
	 * ({@link Fault#WORKER_DIES}): then the places stay until their holds run out.
	 */
	private boolean release(Worker worker) {
		if (worker.held.isEmpty() && worker.running.isEmpty()) {
			return false;
		}
		List<Lease> notStarted = notStarted(worker);
		// the places of the runs it was let through and did not start
		List<Run> places = worker.held.stream().filter((held) -> held.admittedTo != null).map(Held::place).toList();
		List<Run> interrupted = worker.running.stream()
			.filter((run) -> enabled(Fault.RUNNING_JOBS_HANDED_BACK, 0.5))
			.toList();
		List<Lease> running = interrupted.stream().map((run) -> run.job.lease()).toList();
		long released = this.listeners.getLeaseOperations().release(QUEUE, notStarted, true)
				+ this.listeners.getLeaseOperations().release(QUEUE, running, false);
		if (enabled(Fault.RELEASE_RESENT, 0.3)) {
			this.listeners.getLeaseOperations().release(QUEUE, notStarted, true);
			this.listeners.getLeaseOperations().release(QUEUE, running, false);
		}
		worker.held.clear();
		worker.running.forEach((run) -> run.rest.clear());
		worker.running.removeAll(interrupted);
		// an instance that dies once its jobs went back, or whose leave fails, leaves
		// their places to their holds (migrate.lua wakes their lines as they run out)
		boolean dies = !places.isEmpty() && enabled(Fault.WORKER_DIES, 0.3);
		trace(worker + " stops: releases " + notStarted + " not started and " + interrupted + " interrupted: "
				+ released + (places.isEmpty() ? ""
						: (dies ? ", dies or fails to leave the places of " : ", leaves the places of ") + places));
		if (!dies) {
			places.forEach((place) -> leaveGates(worker, place, false));
		}
		interrupted.forEach((run) -> leaveGates(worker, run, false));
		if (!dies) {
			checkLeft(places);
		}
		return true;
	}

	/**
	 * Check that the places of runs a stopping container was let through are left: the
	 * gates hold them no longer, and the next in line may pass.
	 */
	private void checkLeft(List<Run> places) {
		Snapshot snapshot = snapshot();
		for (Run place : places) {
			String holder = holder(place.holder);
			check(!snapshot.holding.containsKey(holder) && !snapshot.held.containsKey(holder), Invariant.GATES,
					() -> "the gates of " + place + " still hold the place of " + holder
							+ " after its container stopped");
		}
		this.placesLeftOnStop += places.size();
	}

	/**
	 * Return how many places of runs let through at a hand-over stopping containers left
	 * before they started.
	 */
	int placesLeftOnStop() {
		return this.placesLeftOnStop;
	}

	/** The worker's instance dies: its gates and leases stay until they expire. */
	private boolean die(Worker worker) {
		if (!this.settings.faults().contains(Fault.WORKER_DIES)
				|| (worker.held.isEmpty() && worker.running.isEmpty())) {
			return false;
		}
		trace(worker + " dies holding " + worker.held + ", running " + worker.running);
		worker.held.clear();
		worker.running.clear();
		return true;
	}

	// migrators

	private void migrate(String migrator) {
		var migration = this.listeners.migrate(QUEUE);
		String resent = "";
		if (enabled(Fault.MIGRATE_RESENT, 0.3)) {
			resent = " (reply lost: " + migration + "; re-sent)";
			migration = this.listeners.migrate(QUEUE);
		}
		trace(migrator + " migrates" + resent + ": " + migration);
		replaceAWokenJob();
	}

	/**
	 * Waits for the Redis clock to pass the next short lease or due time, then migrates.
	 */
	private boolean awaitExpiry() {
		Snapshot snapshot = snapshot();
		long next = Long.MAX_VALUE;
		for (Map<String, Long> set : List.of(snapshot.delayed, snapshot.reserved)) {
			for (long at : set.values()) {
				if (at < snapshot.now + 100) {
					next = Math.min(next, at);
				}
			}
		}
		if (next == Long.MAX_VALUE) {
			return false;
		}
		long until = next;
		await().atMost(Duration.ofSeconds(5))
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(1))
			.until(() -> snapshotTime() > until);
		trace("the Redis clock passes " + until);
		migrate("migrator " + this.random.nextInt(this.settings.migrators()));
		return true;
	}

	// invariants

	private void checkState() {
		Snapshot snapshot = snapshot();
		// data model 7: a parked job waits in its gate's line alone; only a queue
		// upgraded from model 6, which the tester never runs, keeps one in delayed at
		// +inf, marked by the field '' of parked (LEFT_IN_DELAYED in common.lua)
		check(snapshot.delayedAtInfinity.isEmpty() && !snapshot.parked.containsKey(""), Invariant.PARKED,
				() -> "delayed holds " + snapshot.delayedAtInfinity + " at +inf, parked "
						+ (snapshot.parked.containsKey("") ? "has" : "has not") + " the field ''");
		Map<String, Integer> places = new HashMap<>();
		Set<Integer> levels = new HashSet<>();
		checkReadyList(snapshot).forEach((id, live) -> {
			if (live > 0) {
				places.merge(id, live, Integer::sum);
				// a ready job waits at the level of its member of queued (reserve takes a
				// member counted stale for the job while the job is ready), else at the
				// default level; a member left by a job the older scripts took out of
				// line
				// is no job: its level has none unless others wait there
				Long score = snapshot.queued.get(id);
				levels.add((score != null) ? (int) (JobPriority.HIGHEST - score / BAND) : JobPriority.DEFAULT);
			}
		});
		this.levelsWithJobs = levels;
		for (Map<String, Long> set : List.of(snapshot.delayed, snapshot.reserved, snapshot.dead)) {
			set.keySet().forEach((id) -> places.merge(id, 1, Integer::sum));
		}
		snapshot.parkedJobs.forEach((id) -> places.merge(id, 1, Integer::sum));
		places.forEach((id, count) -> check(count == 1 && snapshot.jobs.containsKey(id), Invariant.ONE_STATE,
				() -> id + " is in " + count + " of ready, delayed, parked, reserved and dead, with"
						+ (snapshot.jobs.containsKey(id) ? "" : "out") + " data"));
		snapshot.jobs.keySet()
			.forEach((id) -> check(places.containsKey(id), Invariant.ONE_STATE,
					() -> id + " has data but is in none of ready, delayed, parked, reserved and dead"));
		snapshot.attempts.forEach((id, used) -> check(Integer.parseInt(used) <= maxAttempts(snapshot.jobs.get(id)),
				Invariant.ATTEMPTS, () -> id + " used " + used + " attempts of " + maxAttempts(snapshot.jobs.get(id))));
		// the field '' is no lease: it keeps the hash a hash table (see reserve.lua)
		snapshot.leases.entrySet().stream().filter((lease) -> !lease.getKey().isEmpty()).forEach((lease) -> {
			String id = lease.getKey();
			String token = lease.getValue();
			int attempt = Integer.parseInt(token.substring(token.indexOf(':') + 1));
			check(attempt <= maxAttempts(snapshot.jobs.get(id)), Invariant.ATTEMPTS,
					() -> id + " runs attempt " + attempt + " of " + maxAttempts(snapshot.jobs.get(id)));
		});
		checkDispatches(snapshot);
		checkGates(snapshot);
		checkParked(snapshot);
		checkLevels(snapshot);
		checkStatistics();
	}

	/**
	 * Check that every job keeps the priority level and group its dispatch gave it, a
	 * ready one waits in its level's line, and each group with ready jobs, and only such
	 * a group, is counted with them (see "Priorities and groups" in {@code common.lua}).
	 */
	private void checkLevels(Snapshot snapshot) {
		snapshot.jobs.forEach((id, envelope) -> {
			String place = place(envelope);
			String kept = snapshot.levels.get(id);
			// a job the older scripts stored keeps the place they left: they know none
			check(Objects.equals(place, kept) || dispatchOf(envelope).byOlderScripts, Invariant.LEVEL,
					() -> id + " of level and group " + place + " is kept as " + kept);
		});
		// a job the older scripts took out of line leaves its kept place (and its member
		// of queued, if it was ready), which a job stored at its id here must not inherit
		snapshot.levels.keySet()
			.forEach((id) -> check(snapshot.jobs.containsKey(id) || this.takenOutByOlderScripts.contains(id),
					Invariant.LEVEL, () -> id + " has a level but no data"));
		// each member is counted in the group of its kept place, until it is reserved or
		// replaced
		Map<String, Integer> groups = new HashMap<>();
		snapshot.queued.forEach((id, score) -> {
			long band = JobPriority.HIGHEST - score / BAND;
			String kept = snapshot.levels.get(id);
			String level = (kept != null) ? kept.split(" ")[0] : String.valueOf(JobPriority.DEFAULT);
			check(kept != null && String.valueOf(band).equals(level), Invariant.LEVEL,
					() -> id + " kept at level and group " + kept + " waits in the line of level " + band);
			if (kept.contains(" ")) {
				groups.merge("g" + level + ":" + kept.substring(kept.indexOf(' ') + 1), 1, Integer::sum);
			}
		});
		Map<String, Integer> counted = new HashMap<>();
		Map<String, Integer> perLevel = new HashMap<>();
		snapshot.fair.forEach((field, value) -> {
			if (field.startsWith("g")) {
				counted.put(field, Integer.parseInt(value.substring(value.indexOf(' ') + 1)));
				perLevel.merge("c" + field.substring(1, field.indexOf(':')), 1, Integer::sum);
			}
		});
		check(counted.equals(groups), Invariant.LEVEL,
				() -> "the groups with ready jobs are " + groups + ", counted as " + counted);
		snapshot.fair.forEach((field, value) -> {
			if (field.startsWith("c")) {
				check(String.valueOf(perLevel.get(field)).equals(value), Invariant.LEVEL,
						() -> field + " counts " + value + " groups, " + perLevel.get(field) + " have ready jobs");
			}
		});
		perLevel.forEach((field, count) -> check(snapshot.fair.containsKey(field), Invariant.LEVEL,
				() -> field + " does not count its " + count + " groups"));
	}

	/**
	 * Check the starvation bound of the priority levels (see "The ordering and starvation
	 * rule" in the priorities page) after a reservation: while a level L has ready jobs,
	 * the reservations of other levels before its next are at most A / 2^L + b, A the sum
	 * of the weights 2^j of the higher levels j and b the number of lower levels that had
	 * ready jobs meanwhile, however levels come and go.
	 */
	private void checkShares(Reservation reservation) {
		if (reservation.jobs().stream().anyMatch((job) -> dispatchOf(job.envelope()).byOlderScripts)) {
			// a job the older scripts stored is reserved at the place its id kept, which
			// its envelope does not say: the waits start again
			this.waits.clear();
			return;
		}
		Set<Integer> served = new HashSet<>();
		reservation.jobs().forEach((job) -> served.add(levelOf(job.envelope())));
		int count = reservation.jobs().size() + reservation.missing().size();
		this.waits.keySet().retainAll(this.levelsWithJobs);
		for (int level : this.levelsWithJobs) {
			LevelWait wait = this.waits.computeIfAbsent(level, (key) -> new LevelWait());
			wait.levels.addAll(this.levelsWithJobs);
			if (served.contains(level)) {
				// the reservations after its own in the same call are not counted: they
				// may only be fewer than its next wait
				wait.others = 0;
				wait.levels.clear();
				wait.levels.addAll(this.levelsWithJobs);
			}
			else {
				wait.others += count;
				long higher = wait.levels.stream()
					.filter((other) -> other > level)
					.mapToLong((other) -> 1L << other)
					.sum();
				long lower = wait.levels.stream().filter((other) -> other < level).count();
				long bound = (higher >> level) + lower;
				check(wait.others <= bound, Invariant.SHARES, () -> "level " + level + " waited for " + wait.others
						+ " reservations of others, at most " + bound + " with levels " + wait.levels + " having jobs");
			}
		}
	}

	private static int levelOf(String envelope) {
		String place = place(envelope);
		return (place != null) ? Integer.parseInt(place.split(" ")[0]) : JobPriority.DEFAULT;
	}

	/**
	 * Return the level and group of an envelope as the levels hash keeps them, or
	 * {@code null} for the default level without a group.
	 */
	private static @Nullable String place(@Nullable String envelope) {
		Matcher matcher = PRIORITY.matcher((envelope != null) ? envelope : "");
		if (!matcher.find()) {
			return null;
		}
		String level = (matcher.group(1) != null) ? matcher.group(1) : String.valueOf(JobPriority.DEFAULT);
		if (matcher.group(2) != null) {
			return level + " " + matcher.group(2);
		}
		return (matcher.group(1) != null) ? level : null;
	}

	/**
	 * Check that the statistics series (their hour ring, summed over its buckets) count
	 * each job's outcomes as they were: its completion, its failed attempts (the last of
	 * a dead job among them, whatever ended it) and its death, a death taken back when
	 * the run it died of completes late.
	 */
	private void checkStatistics() {
		long[] counted = new long[3];
		this.redis.<String, String>opsForHash().entries(this.keys.stats()).forEach((field, value) -> {
			if (field.startsWith("h")) {
				String[] parts = value.split(" ");
				for (int i = 0; i < counted.length; i++) {
					counted[i] += Long.parseLong(parts[i + 1]);
				}
			}
		});
		long[] outcomes = new long[3];
		for (Dispatch dispatch : this.dispatches.values()) {
			for (int i = 0; i < outcomes.length; i++) {
				outcomes[i] += dispatch.counted[i];
			}
		}
		check(Arrays.equals(counted, outcomes), Invariant.STATISTICS, () -> "the series count "
				+ Arrays.toString(counted) + " completed, failed and dead; " + Arrays.toString(outcomes) + " were");
	}

	/**
	 * Check the stale counts of the ready list's entries (see {@code unready} in
	 * {@code common.lua}).
	 * @return the live entries per id: its entries less those counted stale
	 */
	private Map<String, Integer> checkReadyList(Snapshot snapshot) {
		Map<String, Integer> live = new HashMap<>();
		snapshot.ready.forEach((id) -> live.merge(id, 1, Integer::sum));
		long total = 0;
		for (Map.Entry<String, String> entry : snapshot.stale.entrySet()) {
			if (!entry.getKey().isEmpty()) {
				String id = entry.getKey();
				int stale = Integer.parseInt(entry.getValue());
				int entries = live.getOrDefault(id, 0);
				check(stale > 0 && stale <= entries, Invariant.ONE_STATE,
						() -> id + " has " + stale + " stale entries of " + entries + " in the ready list");
				live.put(id, entries - stale);
				total += stale;
			}
		}
		long counted = total;
		String kept = snapshot.stale.get("");
		check((kept != null) ? Long.parseLong(kept) == counted : counted == 0, Invariant.ONE_STATE,
				() -> "the stale entries total " + counted + ", the kept total is " + kept);
		return live;
	}

	private void checkDispatches(Snapshot snapshot) {
		Map<Integer, List<String>> found = new HashMap<>();
		snapshot.jobs
			.forEach((id, envelope) -> found.computeIfAbsent(dispatchOf(envelope).number, (n) -> new ArrayList<>())
				.add(id + " " + snapshot.stateOf(id)));
		snapshot.successors
			.forEach((id, successor) -> found.computeIfAbsent(dispatchOf(successor).number, (n) -> new ArrayList<>())
				.add(id + " successor"));
		found.forEach((number, where) -> {
			Dispatch dispatch = this.dispatches.get(number);
			check(where.size() == 1, Invariant.RUN_AGAIN_BY_RESEND, () -> "d" + number + " is stored twice: " + where);
			String place = where.get(0);
			if (dispatch.state == State.LIVE && place.endsWith(" dead")) {
				died(dispatch);
				checkStartedBeforeDeath(dispatch, snapshot.errors.get(dispatch.command.id()));
			}
			check(dispatch.state == State.LIVE || (dispatch.state == State.DEAD && place.endsWith(" dead")),
					Invariant.RUN_AGAIN_BY_RESEND, () -> "d" + number + " is stored again (" + place + ") though it is "
							+ dispatch.state + "; its runs started: " + dispatch.runsStarted);
		});
		for (Dispatch dispatch : this.dispatches.values()) {
			if (dispatch.state == State.LIVE && !found.containsKey(dispatch.number)) {
				String id = dispatch.command.id();
				// a job that dies while a dispatch waits behind it is dropped, and that
				// dispatch takes over its id
				check(snapshot.jobs.containsKey(id), Invariant.FINISHED_RUN_LOST,
						() -> "d" + dispatch.number + " (" + id + ") vanished without completing or dying");
				died(dispatch);
				checkStartedBeforeDeath(dispatch, "none: dropped at its death for the dispatch behind it");
			}
		}
	}

	/**
	 * Record the death of a job that no failure reported: its lease expired on its last
	 * attempt, its worker shut down on it, or it was dropped for the dispatch behind it.
	 * Its last attempt counts as failed.
	 */
	private static void died(Dispatch dispatch) {
		dispatch.state = State.DEAD;
		dispatch.counted[FAILED]++;
		dispatch.counted[DIED]++;
	}

	/**
	 * A job dies without a started run only past the stall bound: each expired lease that
	 * no renewal confirmed gives its attempt back, up to the max stalls, and uses it
	 * after that, so that it took at least max stalls plus max attempts reservations.
	 */
	private void checkStartedBeforeDeath(Dispatch dispatch, @Nullable String error) {
		check(dispatch.runsStarted > 0
				|| dispatch.reservations >= ListenerOperations.DEFAULT_MAX_STALLS + dispatch.maxAttempts,
				Invariant.DEAD_WITHOUT_START,
				() -> "d" + dispatch.number + " (" + dispatch.command.id() + ", max attempts " + dispatch.maxAttempts
						+ ") died with error '" + error + "' without a started run after " + dispatch.reservations
						+ " reservation(s)");
	}

	private void checkGates(Snapshot snapshot) {
		for (String holder : snapshot.exclusive) {
			check(holder.isEmpty() || this.holding.contains(holder), Invariant.GATES,
					() -> "an exclusive key is held by " + holder + ", not a started run");
		}
		for (Map<String, Long> running : List.of(snapshot.jobRunning, snapshot.queueRunning, snapshot.groupRunning,
				snapshot.countedRunning)) {
			running.forEach((holder, expiry) -> check(expiry <= snapshot.now || this.holding.contains(holder),
					Invariant.GATES, () -> "a running limit counts " + holder + ", not the place of a started run"));
		}
		// admitted where a running set had room, whether by admit or by the leave that
		// handed the job over
		checkRunning(snapshot, snapshot.jobRunning, gates(LIMITED, null, null).jobMaxRunning());
		checkRunning(snapshot, snapshot.countedRunning, countedGates(null).jobMaxRunning());
		checkRunning(snapshot, snapshot.queueRunning, countedGates(null).queueMaxRunning());
		snapshot.rate.keySet()
			.forEach((holder) -> check(this.started.contains(holder), Invariant.GATES,
					() -> "the rate window counts a start of " + holder + ", which never started"));
	}

	/**
	 * Check that every parked job waits in exactly one line, and that nothing else does;
	 * and that its gate is held, or a place it frees is being handed on: a holder held it
	 * past its lease (the migrator wakes its lines), or a job of that line was woken and
	 * is not admitted yet.
	 */
	private void checkParked(Snapshot snapshot) {
		Map<String, Integer> linesOf = new HashMap<>();
		Set<String> handedOn = new HashSet<>();
		for (String entry : snapshot.lines) {
			String id = entry.substring(entry.lastIndexOf('\0') + 1);
			linesOf.merge(id, 1, Integer::sum);
			check(entry.equals(snapshot.parked.get(id)), Invariant.PARKED, () -> "the line entry of " + id
					+ " stands for no parked job: " + entry + " (" + snapshot.stateOf(id) + ")");
		}
		snapshot.parked.forEach((id, entry) -> {
			if (!linesOf.containsKey(id)) {
				// a job woken for a place hands it on until its admission; a new dispatch
				// at its id starts afresh, and must not keep the place behind gates that
				// may not be its own (a job the older scripts replaced keeps it until it
				// is admitted or gone)
				String envelope = snapshot.jobs.get(id);
				check(envelope == null || dispatchOf(envelope).byOlderScripts
						|| gateKeys(id, envelope).contains(gateOf(entry)), Invariant.PARKED,
						() -> id + " keeps the place it was woken for at " + gateOf(entry) + ", which is no gate of "
								+ envelope);
				// it hands the place on while it comes to its admission: one that waits
				// elsewhere (delayed, dead) would keep the line waiting for it
				check(!snapshot.delayed.containsKey(id) && !snapshot.dead.containsKey(id), Invariant.PARKED, () -> id
						+ " keeps the place it was woken for at " + gateOf(entry) + " while " + snapshot.stateOf(id));
				handedOn.add(gateOf(entry));
			}
		});
		snapshot.held.forEach((holder, gates) -> {
			if (snapshot.holding.getOrDefault(holder, Long.MAX_VALUE) <= snapshot.now) {
				handedOn.addAll(List.of(gates.split("\0")));
			}
		});
		snapshot.parkedJobs.forEach((id) -> {
			check(linesOf.getOrDefault(id, 0) == 1, Invariant.PARKED,
					() -> id + " is parked in " + linesOf.getOrDefault(id, 0) + " lines");
			String gate = gateOf(snapshot.parked.get(id));
			check("1".equals(snapshot.gatesHeld.get(gate)) || handedOn.contains(gate), Invariant.PARKED,
					() -> id + " is parked behind " + gate + ", which nothing holds or hands on");
		});
	}

	private void checkRunning(Snapshot snapshot, Map<String, Long> running, int max) {
		long holders = running.values().stream().filter((expiry) -> expiry > snapshot.now).count();
		check(holders <= max, Invariant.GATES,
				() -> "a running set of at most " + max + " counts " + holders + " holders: " + running);
	}

	/**
	 * Return the keys of the gates of the job stored at an id: none for a job without
	 * gates.
	 */
	private List<String> gateKeys(String id, String envelope) {
		return envelope.contains("\"job\":\"plain\"") ? List.of() : this.keys.gates(gates(id, envelope));
	}

	private static String gateOf(String entry) {
		return entry.substring(0, entry.indexOf('\0'));
	}

	private void check(boolean condition, Invariant invariant, Supplier<String> detail) {
		if (!condition) {
			throw new ViolationException(invariant, detail.get());
		}
	}

	// Redis

	@SuppressWarnings("unchecked")
	private Snapshot snapshot() {
		List<Object> values = this.redis.execute(SNAPSHOT, this.snapshotKeys);
		// the ready jobs of every level: the ready list's entries, then the members of
		// queued
		Map<String, Long> queued = scores(values.get(15));
		List<String> ready = new ArrayList<>((List<String>) values.get(1));
		ready.addAll(queued.keySet());
		// the parked jobs: those whose record in parked is an entry in lines (a woken
		// job keeps its record, out of line, until its admission)
		List<String> lines = (List<String>) values.get(19);
		Map<String, String> parked = hash(values.get(20));
		Set<String> inLines = new HashSet<>(lines);
		Set<String> parkedJobs = new HashSet<>();
		parked.forEach((id, entry) -> {
			if (inLines.contains(entry)) {
				parkedJobs.add(id);
			}
		});
		return new Snapshot((Long) values.get(0), ready, scores(values.get(2)), (List<String>) values.get(25),
				parkedJobs, scores(values.get(3)), scores(values.get(4)), hash(values.get(5)), hash(values.get(6)),
				hash(values.get(7)), hash(values.get(8)), hash(values.get(9)), (List<String>) values.get(10),
				scores(values.get(11)), scores(values.get(12)), scores(values.get(13)), hash(values.get(14)), queued,
				hash(values.get(16)), hash(values.get(17)), scores(values.get(18)), lines, parked,
				scores(values.get(21)), hash(values.get(22)), hash(values.get(23)), scores(values.get(24)));
	}

	private long snapshotTime() {
		return snapshot().now;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Long> scores(Object value) {
		List<String> flat = (List<String>) value;
		Map<String, Long> scores = new HashMap<>();
		for (int i = 0; i < flat.size(); i += 2) {
			scores.put(flat.get(i), (long) Double.parseDouble(flat.get(i + 1)));
		}
		return scores;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, String> hash(Object value) {
		List<String> flat = (List<String>) value;
		Map<String, String> hash = new HashMap<>();
		for (int i = 0; i < flat.size(); i += 2) {
			hash.put(flat.get(i), flat.get(i + 1));
		}
		return hash;
	}

	private boolean holdsLease(Lease lease) {
		return lease.token().equals(this.redis.<String, String>opsForHash().get(this.keys.leases(), lease.id()));
	}

	private Dispatch dispatchOf(String envelope) {
		Matcher matcher = DISPATCH.matcher(envelope);
		if (!matcher.find()) {
			throw new IllegalStateException("No dispatch number in " + envelope);
		}
		return this.dispatches.get(Integer.parseInt(matcher.group(1)));
	}

	private static int maxAttempts(@Nullable String envelope) {
		Matcher matcher = MAX_ATTEMPTS.matcher((envelope != null) ? envelope : "");
		return matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
	}

	/**
	 * Return the gates of a gated job: one of two exclusive keys, the job and queue
	 * running limits, the rate limit, and a running limit of one for its group.
	 */
	private static Gates gates(ReservedJob job) {
		return gates(job.id(), job.envelope());
	}

	/**
	 * Return the gates of the gated job stored at an id.
	 */
	private static Gates gates(String id, String envelope) {
		Matcher place = PRIORITY.matcher(envelope);
		String group = place.find() ? place.group(2) : null;
		if (envelope.contains("\"job\":\"" + COUNTED + "\"")) {
			return countedGates(group);
		}
		return gates(LIMITED, "x" + Math.floorMod(id.hashCode(), 2), group);
	}

	private static Gates gates(String job, @Nullable String exclusiveKey, @Nullable String group) {
		return new Gates(exclusiveKey, job, 2, 3, RATE, group, (group != null) ? 1 : 0);
	}

	/**
	 * Return the gates of a counted job: running limits only (of one for the job), which
	 * the run before it lets it through as it leaves them.
	 */
	private static Gates countedGates(@Nullable String group) {
		return new Gates(null, COUNTED, 1, 3, null, group, (group != null) ? 1 : 0);
	}

	private static Gates gatesOfGroup(String group) {
		return gates(LIMITED, "x0", group);
	}

	private static Gates gatesWithKey(String exclusiveKey) {
		return gates(LIMITED, exclusiveKey, null);
	}

	private static String holder(ReservedJob job) {
		return holder(job.lease());
	}

	private static String holder(Lease lease) {
		return lease.id() + ":" + lease.token();
	}

	private void trace(String line) {
		if (this.trace.size() == TRACE_LENGTH) {
			this.trace.removeFirst();
		}
		this.trace.addLast(this.step + ": " + line);
	}

	/**
	 * How large a run is.
	 *
	 * @param steps the number of steps
	 * @param producers the number of producers
	 * @param workers the number of workers
	 * @param migrators the number of migrators
	 * @param callerIds how many caller-chosen ids the producers share (the fewer, the
	 * more duplicates)
	 * @param faults the faults to inject
	 */
	record Settings(int steps, int producers, int workers, int migrators, int callerIds, Set<Fault> faults) {

		Settings withFaults(Set<Fault> faults) {
			return new Settings(this.steps, this.producers, this.workers, this.migrators, this.callerIds, faults);
		}

		Settings withSteps(int steps) {
			return new Settings(steps, this.producers, this.workers, this.migrators, this.callerIds, this.faults);
		}

	}

	/**
	 * An invariant of the guarantees page.
	 */
	enum Invariant {

		ONE_STATE("each job in one state"),

		ATTEMPTS("attempts never over the limit"),

		DEAD_WITHOUT_START("a job never dead without a started run, unless past the stall bound"),

		FINISHED_RUN_LOST("no finished run lost"),

		EARLY("nothing early"),

		RUN_AGAIN_BY_RESEND("no job run again by a re-send"),

		GATES("gates held only by started runs"),

		PARKED("every parked job is in exactly one line and out of delayed, of a gate that is held, or woken within the "
				+ "step that frees it; only an admission parks a job"),

		LEVEL("a job kept at its priority level and in its group"),

		SHARES("a priority level with jobs reserved within its starvation bound"),

		STATISTICS("the statistics count each job's outcomes as they were"),

		BATCH_COUNTS("a batch counts each member once, as it first finished, and keeps the others pending"),

		CALLBACK_EARLY("a batch's callback enqueued only once the batch ended as it calls for"),

		CALLBACK_ONCE("each batch callback enqueued at most once, and exactly once when its batch ended"),

		STEP_ORDER("a chain's step starts only after the step before it succeeded, and never after a step died"),

		STEP_ONCE("a chain's step is enqueued at most once: once it finished it never comes back unless revived"),

		ON_FAILURE_ONCE("a chain's on-failure job enqueued only after a step died, at most once, and exactly once "
				+ "when its chain failed"),

		CHAIN_END("a chain ends once, as its steps' first finishes call for"),

		NOTHING_AFTER_CANCEL(
				"no member or step of a workflow enqueued after its cancel returned, nor of a workflow " + "it holds"),

		KEYS_EXPIRE("every key of a workflow expires once it ended");

		private final String description;

		Invariant(String description) {
			this.description = description;
		}

		@Override
		public String toString() {
			return name() + " (" + this.description + ")";
		}

	}

	/**
	 * The first invariant a run violated.
	 *
	 * @param invariant the invariant
	 * @param step the step after which it was found
	 * @param detail what was found
	 * @param trace the last steps
	 */
	record Violation(Invariant invariant, int step, String detail, List<String> trace) {

		@Override
		public String toString() {
			return this.invariant + " violated at step " + this.step + ": " + this.detail + "\n  "
					+ String.join("\n  ", this.trace);
		}

	}

	private static final class ViolationException extends RuntimeException {

		private final Invariant invariant;

		ViolationException(Invariant invariant, String detail) {
			super(detail, null, false, false);
			this.invariant = invariant;
		}

	}

	private enum State {

		/** The enqueue kept an existing job. */
		DROPPED,

		/** Pending, running or waiting behind its running job. */
		LIVE,

		COMPLETED,

		DEAD,

		/** A dispatch with the policy REPLACE took its place. */
		REPLACED,

		/** An operator cancelled it. */
		CANCELLED,

		/** An operator purged its queue. */
		PURGED

	}

	private static final class Dispatch {

		final int number;

		final EnqueueCommand command;

		final ResendProtection calls;

		final ResendProtection.Call call;

		/** The jobs of its call: itself, and the others sent with it. */
		final List<EnqueueCommand> sent;

		/** The reply to its call, for the first job of the call. */
		@Nullable List<Outcome> replied;

		final int maxAttempts;

		final boolean gated;

		/**
		 * Whether the older scripts stored it (see {@link ScriptTester#olderInstance()}).
		 */
		boolean byOlderScripts;

		State state;

		long notBefore;

		int runsStarted;

		int reservations;

		int acceptedFailures;

		/**
		 * What the statistics must count of this job since the queue began or was purged,
		 * at {@code COMPLETED}, {@code FAILED} and {@code DIED}.
		 */
		final long[] counted = new long[3];

		Dispatch(int number, EnqueueCommand command, int maxAttempts, boolean gated, ResendProtection calls,
				ResendProtection.Call call, List<EnqueueCommand> sent) {
			this.number = number;
			this.command = command;
			this.maxAttempts = maxAttempts;
			this.gated = gated;
			this.calls = calls;
			this.call = call;
			this.sent = sent;
		}

		@Override
		public String toString() {
			return "d" + this.number;
		}

	}

	/**
	 * A job a producer makes, with what it was made of.
	 */
	private record Job(EnqueueCommand command, int kind, int maxAttempts, boolean gated, Due due, int level,
			int group) {

		String describe() {
			return kindName(this.kind) + ", max " + this.maxAttempts + ", " + this.due + (this.gated ? ", gated" : "");
		}

	}

	private record LostCall(String what, ResendProtection.Call call, RedisScript<Long> script, List<String> extraKeys,
			List<String> args, Long reply) {

	}

	/**
	 * A job reserved for a worker. A later job of a run names the lease of the run's
	 * place ({@code holder}); the first job of a run carries the jobs that joined it, in
	 * the order they run after it. A job let through its gates as it was handed over, and
	 * a later job of a run, name the gates of the place ({@code admittedTo}), which its
	 * container leaves if it stops before the job started.
	 */
	private record Held(ReservedJob job, Dispatch dispatch, Duration lease, @Nullable Lease holder, List<Held> run,
			@Nullable Gates admittedTo) {

		Held(ReservedJob job, Dispatch dispatch, Duration lease) {
			this(job, dispatch, lease, null, new ArrayList<>(), null);
		}

		/**
		 * Return the run whose place this job was let through, as its container knows it.
		 */
		Run place() {
			return new Run(this.job, this.dispatch, this.admittedTo,
					(this.holder != null) ? this.holder : this.job.lease(), List.of());
		}

		@Override
		public String toString() {
			return this.job.id() + "=d" + this.dispatch.number + "@" + this.job.attempt();
		}

	}

	/**
	 * A started job, which holds its gates under the lease of its run's place
	 * ({@code holder}: its own, or the first job's of its run), and the jobs of its run
	 * that run after it.
	 */
	private record Run(ReservedJob job, Dispatch dispatch, @Nullable Gates gates, Lease holder, List<Held> rest) {

		@Override
		public String toString() {
			return this.job.id() + "=d" + this.dispatch.number + "@" + this.job.attempt();
		}

	}

	/**
	 * The wait of a priority level with ready jobs since it was last reserved.
	 */
	private static final class LevelWait {

		/** The reservations of other levels since. */
		long others;

		/** The levels that had ready jobs since. */
		final Set<Integer> levels = new HashSet<>();

	}

	private static final class Worker {

		final int index;

		final List<Held> held = new ArrayList<>();

		final List<Run> running = new ArrayList<>();

		Worker(int index) {
			this.index = index;
		}

		@Override
		public String toString() {
			return "worker " + this.index;
		}

	}

	/**
	 * What the queue holds at one moment: {@code delayed} the jobs due at a time,
	 * {@code delayedAtInfinity} the members of delayed at +inf (none in data model 7) and
	 * {@code parkedJobs} the jobs parked behind gates, a state of their own.
	 */
	private record Snapshot(long now, List<String> ready, Map<String, Long> delayed, List<String> delayedAtInfinity,
			Set<String> parkedJobs, Map<String, Long> reserved, Map<String, Long> dead, Map<String, String> jobs,
			Map<String, String> attempts, Map<String, String> leases, Map<String, String> successors,
			Map<String, String> errors, List<String> exclusive, Map<String, Long> jobRunning,
			Map<String, Long> queueRunning, Map<String, Long> rate, Map<String, String> stale, Map<String, Long> queued,
			Map<String, String> levels, Map<String, String> fair, Map<String, Long> groupRunning, List<String> lines,
			Map<String, String> parked, Map<String, Long> holding, Map<String, String> held,
			Map<String, String> gatesHeld, Map<String, Long> countedRunning) {

		String stateOf(String id) {
			if (this.delayed.containsKey(id)) {
				return "delayed";
			}
			if (this.parkedJobs.contains(id)) {
				return "parked";
			}
			if (this.reserved.containsKey(id)) {
				return "reserved";
			}
			return this.dead.containsKey(id) ? "dead" : "ready";
		}

	}

}
