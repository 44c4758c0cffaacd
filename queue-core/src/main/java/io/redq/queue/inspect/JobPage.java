package io.redq.queue.inspect;

import java.util.List;

import io.redq.queue.core.JobStatus;

/**
 * A page of a queue's jobs in one state.
 *
 * @param state the state
 * @param total how many jobs of the queue are in that state
 * @param offset how many were skipped
 * @param jobs the jobs: ready ones by priority level, highest first, then in line order
 * (jobs in groups by their turn), delayed ones by due time, reserved ones by lease
 * expiry, dead and completed ones newest first
 * @author Redq team
 * @since 0.1.0
 */
public record JobPage(JobStatus.State state, long total, int offset, List<JobView> jobs) {
}
