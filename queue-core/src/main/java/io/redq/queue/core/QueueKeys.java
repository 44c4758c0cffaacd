package io.redq.queue.core;

import java.util.List;

/**
 * The Redis keys of one queue: {@code <prefix>:{<queue>}:<part>}. Every key shares the
 * hash tag {@code {<queue>}}, so that a queue lives in one Redis Cluster slot and each
 * script runs on one node.
 *
 * @param ready list of ids ready to run, oldest first
 * @param delayed sorted set of id by due time (epoch ms, Redis clock)
 * @param reserved sorted set of id by lease expiry (epoch ms, Redis clock)
 * @param dead sorted set of id by time of death
 * @param jobs hash of id to envelope JSON
 * @param attempts hash of id to attempts made
 * @param leases hash of id to current lease token
 * @param errors hash of id to last error
 * @param wake sorted set whose single member wakes an idle listener
 * @param sequence counter for lease tokens
 * @param successors hash of id to the dispatch queued behind the running job with that id
 * @param paused string present while the queue is paused
 * @param completed sorted set of the ids of the latest completed jobs by completion time,
 * when kept
 * @author Redq team
 * @since 0.1.0
 */
public record QueueKeys(String ready, String delayed, String reserved, String dead, String jobs, String attempts,
		String leases, String errors, String wake, String sequence, String successors, String paused,
		String completed) {

	/**
	 * Return the keys of a queue.
	 * @param prefix the key prefix, e.g. {@code redq}
	 * @param queue a valid queue name (see {@link QueueNames#validate(String)})
	 * @return the keys
	 */
	public static QueueKeys of(String prefix, String queue) {
		String base = prefix + ":{" + queue + "}:";
		return new QueueKeys(base + "ready", base + "delayed", base + "reserved", base + "dead", base + "jobs",
				base + "attempts", base + "leases", base + "errors", base + "wake", base + "sequence",
				base + "successors", base + "paused", base + "completed");
	}

	/**
	 * Return the keys of the gates a job passes (see {@code admit.lua}), after
	 * {@link #all()}.
	 * @param gates the job's gates
	 * @return the exclusive lock, job running set, queue running set and job rate window,
	 * then the waiting lists of the lock and the two running sets, then the places the
	 * rate limit gave
	 */
	public List<String> gates(Gates gates) {
		String base = this.ready.substring(0, this.ready.length() - "ready".length());
		String exclusive = (gates.exclusiveKey() != null) ? gates.exclusiveKey() : "";
		return List.of(base + "exclusive:" + exclusive, base + "running:" + gates.job(), base + "running",
				base + "rate:" + gates.job(), base + "waiting:exclusive:" + exclusive,
				base + "waiting:running:" + gates.job(), base + "waiting:running", base + "places:" + gates.job());
	}

	/**
	 * Return every key in the order the scripts expect them in {@code KEYS} (see
	 * {@code common.lua}).
	 * @return the keys
	 */
	public List<String> all() {
		return List.of(this.ready, this.delayed, this.reserved, this.dead, this.jobs, this.attempts, this.leases,
				this.errors, this.wake, this.sequence, this.successors, this.paused, this.completed);
	}

}
