package io.redq.queue.redis.tester;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * A fault the {@link ScriptTester} can inject: a command Lettuce re-sends after a lost
 * reply, a reply that never arrives, a worker's instance that dies.
 *
 * @author Redq team
 */
enum Fault {

	/** A lost enqueue reply, re-sent at once (Lettuce re-sends when it reconnects). */
	ENQUEUE_RESENT_AT_ONCE(true),

	/**
	 * A lost enqueue reply, re-sent later, when the job may be running or finished (bug 2
	 * of the correctness issue, fixed).
	 */
	ENQUEUE_RESENT_LATER(true),

	/**
	 * A lost reply of an operator's cancel, reschedule or retry of a dead job, re-sent
	 * later, when a new job may hold the id (item 8 of the second correctness issue,
	 * fixed).
	 */
	OPERATOR_RESENT_LATER(true),

	/** A re-sent {@code admit} (bug 5, fixed). */
	ADMIT_RESENT(true),

	/** A re-sent renewal or leaving of a running job's gates. */
	HOLD_RESENT(true),

	/**
	 * A lost reply to a worker's start call, which Redis ran: the worker does not start
	 * the job, whose full lease then expires as a stall (item 6 of issue 26, fixed).
	 */
	START_REPLY_LOST(true),

	/** A re-sent acknowledgement. */
	ACK_RESENT(true),

	/** A re-sent failure. */
	FAIL_RESENT(true),

	/** A re-sent lease extension. */
	EXTEND_RESENT(true),

	/** A re-sent release. */
	RELEASE_RESENT(true),

	/** A re-sent migration. */
	MIGRATE_RESENT(true),

	/**
	 * A container stops while jobs still run past its shutdown timeout: they are
	 * interrupted and handed back with their attempt used, also on their last attempt.
	 */
	RUNNING_JOBS_HANDED_BACK(true),

	/**
	 * A lost reserve reply: the worker never starts those jobs, whose short leases expire
	 * (bug 6, fixed: a stall gives the attempt back).
	 */
	RESERVE_REPLY_LOST(true),

	/**
	 * A worker's instance dies with jobs it reserved ahead and never started, or that
	 * started before any renewal; reservations get short leases (bug 6, fixed).
	 */
	WORKER_DIES(true),

	/**
	 * A migrator applies a queue's hand-overs to their batches and dies before it removes
	 * them: the next applies them again.
	 */
	HAND_OVER_APPLIED_AGAIN(true),

	/**
	 * A migrator enqueues a batch's callback and dies before it records the delivery: the
	 * next call on the batch delivers it again.
	 */
	DELIVERY_NOT_RECORDED(true),

	/**
	 * An outbox relay creates a batch and dies before it deletes the row: the next relay
	 * creates it again, meanwhile or after its members finished.
	 */
	BATCH_CREATION_APPLIED_AGAIN(true),

	/**
	 * A running member adds members to its batch and its process dies before it enqueues
	 * them: the batch must not wait for them once the adding member finished.
	 */
	ADD_NOT_ENQUEUED(true),

	/**
	 * A migrator applies a queue's hand-overs, then stalls before it delivers what they
	 * call for (a chain's next step, a batch step's creation, callbacks), going on one
	 * piece at a time while other migrators and cancels overtake it.
	 */
	MOVER_STALLS(true),

	/**
	 * A lost reply of an operator's chain cancel, which Redis ran: the caller did none of
	 * what the reply calls for (no forestall of the step a mover read, no cancel in the
	 * step's queue) when Lettuce re-sends the call at once.
	 */
	CANCEL_RESENT(true),

	/**
	 * A dispatch replaces a job woken for a freed place before a worker admits it (a
	 * producer racing the leave or migration that woke it), with a job of any gates.
	 */
	WOKEN_JOB_REPLACED(true),

	/**
	 * The running limits of a job woken for a freed place are lifted before a worker
	 * admits it (a deploy, or a {@code REPLACE_PAYLOAD} of a job without them): it takes
	 * no place, and the place it was woken for must go to the next in line.
	 */
	LIMIT_LIFTED(true);

	/** The system property that lists the faults, or {@code all}. */
	static final String PROPERTY = "redq.tester.faults";

	private final boolean safeToday;

	Fault(boolean safeToday) {
		this.safeToday = safeToday;
	}

	/**
	 * Return the faults the scripts are meant to survive today: the default of
	 * {@code mvn verify}.
	 * @return the faults
	 */
	static Set<Fault> safeToday() {
		EnumSet<Fault> faults = EnumSet.noneOf(Fault.class);
		for (Fault fault : values()) {
			if (fault.safeToday) {
				faults.add(fault);
			}
		}
		return faults;
	}

	/**
	 * Parse a list of fault names separated by commas, where {@code safe} stands for
	 * {@link #safeToday()} and {@code all} for every fault; nothing means {@code safe}.
	 * @param value the list, e.g. {@code safe,enqueue_resent_later}
	 * @return the faults
	 */
	static Set<Fault> parse(String value) {
		EnumSet<Fault> faults = EnumSet.noneOf(Fault.class);
		for (String name : ((value == null || value.isBlank()) ? "safe" : value).split(",")) {
			String trimmed = name.trim();
			if (trimmed.equalsIgnoreCase("safe")) {
				faults.addAll(safeToday());
			}
			else if (trimmed.equalsIgnoreCase("all")) {
				faults.addAll(EnumSet.allOf(Fault.class));
			}
			else if (!trimmed.isEmpty()) {
				faults.add(valueOf(trimmed.toUpperCase(Locale.ROOT).replace('-', '_')));
			}
		}
		return faults;
	}

}
