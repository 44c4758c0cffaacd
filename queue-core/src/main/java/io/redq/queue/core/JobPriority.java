package io.redq.queue.core;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The priority levels and groups of jobs within a queue: from {@value #LOWEST} to
 * {@value #HIGHEST}, {@value #DEFAULT} unless a job says otherwise. A higher level is
 * reserved first and equal levels in the order their jobs became ready; each level that
 * has jobs still gets a share of the reservations that halves from one level to the next
 * lower one, so that no level starves; within a level, the groups that have ready jobs
 * take turns (see the "Priorities and groups" page of the documentation).
 * <p>
 * Ten levels, a small fixed range: each has a band of its own in Redis, so that the
 * reserve script finds the next job of any level in O(log n) and inspects every level
 * once per call, and ten shares from 1 to 512 already span more than any queue needs; the
 * default sits in the middle, so that jobs can be made both more and less urgent than the
 * rest.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class JobPriority {

	/** The lowest level. */
	public static final int LOWEST = 0;

	/** The level of a job that names none. */
	public static final int DEFAULT = 5;

	/** The highest level. */
	public static final int HIGHEST = 9;

	private static final Pattern GROUP = Pattern.compile("[A-Za-z0-9._:@-]{1,128}");

	private JobPriority() {
	}

	/**
	 * Check a group name (see
	 * {@link io.redq.queue.core.JobRequest.Builder#group(String)}).
	 * @param group the group
	 * @return the group
	 * @throws IllegalArgumentException when the name is not 1 to 128 letters, digits and
	 * {@code . _ : @ -}
	 */
	public static String validateGroup(@Nullable String group) {
		if (group == null || !GROUP.matcher(group).matches()) {
			throw new IllegalArgumentException("Group '" + group + "' must be 1 to 128 letters, digits and . _ : @ -; "
					+ "map other names to such a key, e.g. a tenant's id");
		}
		return group;
	}

	/**
	 * Check a priority level.
	 * @param priority the level
	 * @param what what has it, for the message, e.g. {@code "Job 'mail'"}
	 * @return the level
	 * @throws IllegalArgumentException when the level is outside the range
	 */
	public static int validate(int priority, String what) {
		if (priority < LOWEST || priority > HIGHEST) {
			throw new IllegalArgumentException(what + " has priority " + priority + ", outside the levels " + LOWEST
					+ " (lowest) to " + HIGHEST + " (highest); " + DEFAULT + " is the default");
		}
		return priority;
	}

}
