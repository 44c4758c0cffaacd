package io.redq.queue.core;

/**
 * What a batch does when one of its members dies (uses its attempts), chosen when the
 * batch is dispatched.
 *
 * @author Redq team
 * @since 0.1.0
 * @see BatchRequest
 */
public enum BatchDeathPolicy {

	/**
	 * The batch fails at its first dead member: its on-complete callback runs then, its
	 * on-success callback never. The members still pending keep running.
	 */
	FAIL_FAST,

	/**
	 * The batch waits for every member: its on-complete callback runs once each one
	 * succeeded or died, its on-success callback only when none died.
	 */
	CARRY_ON

}
