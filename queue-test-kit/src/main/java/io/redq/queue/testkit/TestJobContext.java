package io.redq.queue.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.redq.queue.listener.JobContext;

/**
 * A {@link JobContext} for running a handler in a test, with the values the test chooses;
 * its lease is never lost.
 *
 * @param id the job id
 * @param jobName the job's name
 * @param queue the queue
 * @param attempt the attempt, from 1
 * @param maxAttempts how many attempts the job gets
 * @param createdAt when the job was enqueued
 * @param availableAt when the job became ready
 * @param headers the headers
 * @author Redq team
 * @since 0.1.0
 */
public record TestJobContext(String id, String jobName, String queue, int attempt, int maxAttempts, Instant createdAt,
		Instant availableAt, Map<String, String> headers) implements JobContext {

	@Override
	public String getId() {
		return this.id;
	}

	@Override
	public String getJobName() {
		return this.jobName;
	}

	@Override
	public String getQueue() {
		return this.queue;
	}

	@Override
	public int getAttempt() {
		return this.attempt;
	}

	@Override
	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	@Override
	public Instant getCreatedAt() {
		return this.createdAt;
	}

	@Override
	public Instant getAvailableAt() {
		return this.availableAt;
	}

	@Override
	public Map<String, String> getHeaders() {
		return this.headers;
	}

	@Override
	public boolean isLeaseLost() {
		return false;
	}

	@Override
	public boolean extendLease(Duration duration) {
		return true;
	}

}
