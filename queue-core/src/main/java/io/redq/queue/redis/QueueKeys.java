package io.redq.queue.redis;

import java.util.List;

import io.redq.queue.core.QueueNames;

/**
 * The Redis keys of one queue: {@code <prefix>:{<queue>}:<part>}. Every key shares the
 * hash tag {@code {<queue>}}, so that a queue lives in one Redis Cluster slot and each
 * script runs on one node. Every key of a queue, those of its gates and recurring jobs
 * included, is laid out here and nowhere else.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class QueueKeys {

	private final String base;

	private final String ready;

	private final String delayed;

	private final String reserved;

	private final String dead;

	private final String jobs;

	private final String attempts;

	private final String leases;

	private final String errors;

	private final String wake;

	private final String sequence;

	private final String successors;

	private final String paused;

	private final String completed;

	private final String model;

	private final String started;

	private final String stalls;

	private final String stale;

	private final String runs;

	private final String stats;

	private final String traces;

	private final String queued;

	private final String levels;

	private final String fair;

	private final String lines;

	private final String parked;

	private final String holding;

	private final String held;

	private final String batchLinks;

	private final String handover;

	private final String waiting;

	private final List<String> all;

	private QueueKeys(String base) {
		this.base = base;
		this.ready = key("ready");
		this.delayed = key("delayed");
		this.reserved = key("reserved");
		this.dead = key("dead");
		this.jobs = key("jobs");
		this.attempts = key("attempts");
		this.leases = key("leases");
		this.errors = key("errors");
		this.wake = key("wake");
		this.sequence = key("sequence");
		this.successors = key("successors");
		this.paused = key("paused");
		this.completed = key("completed");
		this.model = key("model");
		this.started = key("started");
		this.stalls = key("stalls");
		this.stale = key("stale");
		this.runs = key("runs");
		this.stats = key("stats");
		this.traces = key("traces");
		this.queued = key("queued");
		this.levels = key("levels");
		this.fair = key("fair");
		this.lines = key("lines");
		this.parked = key("parked");
		this.holding = key("holding");
		this.held = key("held");
		this.batchLinks = key("batch-links");
		this.handover = key("handover");
		this.waiting = key("waiting");
		this.all = List.of(this.ready, this.delayed, this.reserved, this.dead, this.jobs, this.attempts, this.leases,
				this.errors, this.wake, this.sequence, this.successors, this.paused, this.completed, this.model,
				this.started, this.stalls, this.stale, this.runs, this.stats, this.traces, this.queued, this.levels,
				this.fair, this.lines, this.parked, this.holding, this.held, this.batchLinks, this.handover,
				this.waiting);
	}

	/**
	 * Return the keys of a queue.
	 * @param prefix the key prefix, e.g. {@code redq}
	 * @param queue a valid queue name (see {@link QueueNames#validate(String)})
	 * @return the keys
	 */
	public static QueueKeys of(String prefix, String queue) {
		return new QueueKeys(prefix + ":{" + queue + "}:");
	}

	/**
	 * Return the keys of a shard of a queue other than its first, which has the queue's
	 * own keys: {@code <prefix>:shard:{<tag>}:<part>}, outside the keys of every queue,
	 * so that no queue name shares them.
	 * @param prefix the key prefix, e.g. {@code redq}
	 * @param tag the shard's hash tag without its braces (see {@link ShardPlacement})
	 * @return the keys
	 */
	static QueueKeys ofShard(String prefix, String tag) {
		return new QueueKeys(prefix + ":shard:{" + tag + "}:");
	}

	private String key(String part) {
		return this.base + part;
	}

	/**
	 * Return the list of ids ready to run, oldest first.
	 * @return the key
	 */
	public String ready() {
		return this.ready;
	}

	/**
	 * Return the sorted set of id by due time (epoch ms, Redis clock).
	 * @return the key
	 */
	public String delayed() {
		return this.delayed;
	}

	/**
	 * Return the sorted set of id by lease expiry (epoch ms, Redis clock).
	 * @return the key
	 */
	public String reserved() {
		return this.reserved;
	}

	/**
	 * Return the sorted set of id by time of death.
	 * @return the key
	 */
	public String dead() {
		return this.dead;
	}

	/**
	 * Return the hash of id to envelope JSON.
	 * @return the key
	 */
	public String jobs() {
		return this.jobs;
	}

	/**
	 * Return the hash of id to attempts made.
	 * @return the key
	 */
	public String attempts() {
		return this.attempts;
	}

	/**
	 * Return the hash of id to current lease token.
	 * @return the key
	 */
	public String leases() {
		return this.leases;
	}

	/**
	 * Return the hash of id to last error.
	 * @return the key
	 */
	public String errors() {
		return this.errors;
	}

	/**
	 * Return the sorted set whose single member wakes an idle listener.
	 * @return the key
	 */
	public String wake() {
		return this.wake;
	}

	/**
	 * Return the counter for lease tokens.
	 * @return the key
	 */
	public String sequence() {
		return this.sequence;
	}

	/**
	 * Return the hash of id to the dispatch queued behind the running job with that id.
	 * @return the key
	 */
	public String successors() {
		return this.successors;
	}

	/**
	 * Return the string present while the queue is paused.
	 * @return the key
	 */
	public String paused() {
		return this.paused;
	}

	/**
	 * Return the sorted set of the ids of the latest completed jobs by completion time,
	 * when kept.
	 * @return the key
	 */
	public String completed() {
		return this.completed;
	}

	/**
	 * Return the string that holds the queue's data model, which every script checks
	 * first (see {@code common.lua}). Per queue rather than per prefix, so that it shares
	 * the queue's slot on a Redis Cluster.
	 * @return the key
	 */
	public String model() {
		return this.model;
	}

	/**
	 * Return the set of the ids of reserved jobs whose run a lease renewal confirmed
	 * started.
	 * @return the key
	 */
	public String started() {
		return this.started;
	}

	/**
	 * Return the hash of id to how many times its lease expired before a renewal
	 * confirmed its run started.
	 * @return the key
	 */
	public String stalls() {
		return this.stalls;
	}

	/**
	 * Return the hash of id to how many entries of that id in the ready list stand for
	 * nothing any more (the job was cancelled, replaced or rescheduled while ready),
	 * which reserving skips, with their total under the empty field.
	 * @return the key
	 */
	public String stale() {
		return this.stale;
	}

	/**
	 * Return the hash of id to the lease token of its latest run whose start reached
	 * Redis, kept after that run's lease ended, so that the run is still accepted when it
	 * finishes late while no later run of the job started.
	 * @return the key
	 */
	public String runs() {
		return this.runs;
	}

	/**
	 * Return the hash of the queue's statistics: completed, failed and dead jobs per
	 * minute over the last hour and per hour over the last days, a fixed ring of buckets
	 * each, written by the scripts that finish jobs.
	 * @return the key
	 */
	public String stats() {
		return this.stats;
	}

	/**
	 * Return the hash of id to the stack trace of its last failure, when a handler threw
	 * it: bounded in size, kept while the job is.
	 * @return the key
	 */
	public String traces() {
		return this.traces;
	}

	/**
	 * Return the sorted set of the ready jobs whose priority level is not the default, or
	 * that are in a group (the others are in {@link #ready()}), scored by level band and
	 * slot within it (see {@code common.lua}).
	 * @return the key
	 */
	public String queued() {
		return this.queued;
	}

	/**
	 * Return the hash of id to priority level and group of every job that is not at the
	 * default level or is in a group, while the job lives, so that it comes back at its
	 * level and in its group.
	 * @return the key
	 */
	public String levels() {
		return this.levels;
	}

	/**
	 * Return the hash of each priority level's slot counters and reservation share state,
	 * and of the lines of the groups that have ready jobs (see {@code common.lua}).
	 * @return the key
	 */
	public String fair() {
		return this.fair;
	}

	/**
	 * Return the sorted set of the lines of the jobs parked behind a gate: every gate's
	 * line, in arrival order (see Gates in {@code common.lua}).
	 * @return the key
	 */
	public String lines() {
		return this.lines;
	}

	/**
	 * Return the hash of id to the entry of a parked job (or one woken and not admitted
	 * yet) in {@link #lines()}.
	 * @return the key
	 */
	public String parked() {
		return this.parked;
	}

	/**
	 * Return the sorted set of the runs that hold gates, by when their hold ends unless
	 * renewed.
	 * @return the key
	 */
	public String holding() {
		return this.holding;
	}

	/**
	 * Return the hash of each run in {@link #holding()} to the gates it holds.
	 * @return the key
	 */
	public String held() {
		return this.held;
	}

	/**
	 * Return the hash of the id of each batch member that has not finished yet to its
	 * batch's id.
	 * @return the key
	 */
	public String batchLinks() {
		return this.batchLinks;
	}

	/**
	 * Return the sorted set of the finished batch members to hand over to their batches,
	 * each {@code <batch id>\n<id>\n<outcome>}, by the time they finished.
	 * @return the key
	 */
	public String handover() {
		return this.handover;
	}

	/**
	 * Return the string present while a caller waits for the result of a job of the
	 * queue, which tells the scripts that finish jobs to announce them on the channel of
	 * the same name (see {@code announce} in {@code common.lua}).
	 * @return the key, also the name of the channel
	 */
	public String waiting() {
		return this.waiting;
	}

	/**
	 * Return the key of a completed job's result, kept for the results' time to live.
	 * @param id the job id
	 * @return the key
	 */
	public String result(String id) {
		return key("result:" + id);
	}

	/**
	 * Return the key of the hash of what a job keeps across its attempts while it lives:
	 * its progress, its cursor and its finished steps (see {@code progress.lua}).
	 * @param id the job id
	 * @return the key
	 */
	public String progress(String id) {
		return key("progress:" + id);
	}

	/**
	 * Return the key of a recurring job's state: its latest tick and whether it is
	 * paused.
	 * @param job the job name
	 * @return the key
	 */
	public String recurring(String job) {
		return key("recurring:" + job);
	}

	/**
	 * Return the keys of the gates a job passes (see {@code admit.lua}), after
	 * {@link #all()}.
	 * @param gates the job's gates
	 * @return the group running set, the exclusive lock, the job running set, the queue
	 * running set, the job rate window and the places the rate limit gave
	 */
	public List<String> gates(Gates gates) {
		String exclusive = (gates.exclusiveKey() != null) ? gates.exclusiveKey() : "";
		String group = (gates.group() != null) ? gates.group() : "";
		return List.of(key("group-running:" + group), key("exclusive:" + exclusive), key("running:" + gates.job()),
				key("running"), key("rate:" + gates.job()), key("places:" + gates.job()));
	}

	/**
	 * Return the hash tag that every key of the queue (or shard) shares, which chooses
	 * its Redis Cluster slot.
	 * @return the hash tag with its braces, e.g. <code>{mail}</code>
	 */
	public String hashTag() {
		return this.base.substring(this.base.indexOf('{'), this.base.lastIndexOf('}') + 1);
	}

	/**
	 * Return the {@code SCAN} pattern that matches every key of the queue, its gates and
	 * recurring jobs included, and no key of another queue.
	 * @return the pattern
	 */
	public String pattern() {
		return Keyspace.escapeGlob(this.base) + "*";
	}

	/**
	 * Return whether a key of this queue holds a recurring job's state (see
	 * {@link #recurring(String)}).
	 * @param key a key of this queue
	 * @return whether it is a recurring job's state
	 */
	public boolean isRecurring(String key) {
		return key.startsWith(key("recurring:"));
	}

	/**
	 * Return whether a key of this queue holds the reply of a lane's latest call (see
	 * {@link #sent(String, int)}).
	 * @param key a key of this queue
	 * @return whether it is a lane's key
	 */
	public boolean isSent(String key) {
		return key.startsWith(key("sent:"));
	}

	/**
	 * Return every key in the order the scripts expect them in {@code KEYS} (see
	 * {@code common.lua}).
	 * @return the keys
	 */
	public List<String> all() {
		return this.all;
	}

	/**
	 * Return the key under which Redis remembers the reply of the latest call on a lane
	 * of a producer for the re-send window (see {@link ResendProtection}), passed after
	 * {@link #all()}.
	 * @param producer the producer's id
	 * @param lane the lane
	 * @return the key
	 */
	public String sent(String producer, int lane) {
		return key("sent:" + producer + ":" + lane);
	}

}
