package io.redq.queue.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobIds;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueNames;
import io.redq.queue.core.Timer;
import org.jspecify.annotations.Nullable;

/**
 * A {@link JobDispatcher} that records what the application dispatches and schedules, and
 * runs nothing, so that a test asserts on the jobs (job, payload, due time, id, timer
 * key) without Redis running them. Declare it as a bean (Redq's auto-configuration then
 * backs off from its own dispatcher), e.g. with
 * {@code @Import(CapturingJobDispatcher.class)}.
 * <p>
 * Every dispatch is {@link Outcome#CREATED created} with the application's id or a new
 * one; {@code reschedule} moves a recorded timer, {@code cancelTimer} and {@code cancel}
 * remove recorded jobs, and {@code findTimer} finds a recorded timer.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class CapturingJobDispatcher implements JobDispatcher {

	private final List<CapturedJob> jobs = new ArrayList<>();

	/**
	 * Return the recorded jobs, in dispatch order.
	 * @return a copy of the recorded jobs
	 */
	public synchronized List<CapturedJob> getJobs() {
		return List.copyOf(this.jobs);
	}

	/**
	 * Return the recorded jobs of one name, in dispatch order.
	 * @param jobName the job's name
	 * @return the jobs of that name
	 */
	public synchronized List<CapturedJob> getJobs(String jobName) {
		return this.jobs.stream().filter((job) -> jobName.equals(job.jobName())).toList();
	}

	/**
	 * Forget every recorded job, e.g. before each test.
	 */
	public synchronized void clear() {
		this.jobs.clear();
	}

	@Override
	public synchronized List<DispatchResult> dispatchAll(Collection<JobRequest> requests) {
		return requests.stream().map((request) -> record(request, null)).toList();
	}

	@Override
	public CompletableFuture<DispatchResult> dispatchAsync(JobRequest request) {
		return CompletableFuture.completedFuture(dispatch(request));
	}

	@Override
	public synchronized boolean cancel(String queue, String id) {
		return this.jobs.removeIf((job) -> id.equals(job.id()));
	}

	@Override
	public synchronized DispatchResult schedule(String jobName, Object key, Instant at) {
		String id = timerId(jobName, key);
		boolean replaced = this.jobs.removeIf((job) -> id.equals(job.id()));
		record(JobRequest.of(jobName, key).id(id, DuplicatePolicy.REPLACE).at(at).build(), key);
		return new DispatchResult(id, replaced ? Outcome.REPLACED : Outcome.CREATED);
	}

	@Override
	public synchronized boolean reschedule(String jobName, Object key, Instant at) {
		String id = timerId(jobName, key);
		if (!this.jobs.removeIf((job) -> id.equals(job.id()))) {
			return false;
		}
		record(JobRequest.of(jobName, key).id(id, DuplicatePolicy.REPLACE).at(at).build(), key);
		return true;
	}

	@Override
	public synchronized boolean cancelTimer(String jobName, Object key) {
		String id = timerId(jobName, key);
		return this.jobs.removeIf((job) -> id.equals(job.id()));
	}

	@Override
	public synchronized Optional<Timer> findTimer(String jobName, Object key) {
		String id = timerId(jobName, key);
		return this.jobs.stream()
			.filter((job) -> id.equals(job.id()) && job.due().absolute())
			.findFirst()
			.map((job) -> new Timer(id, Instant.ofEpochMilli(job.due().millis()),
					Duration.between(Instant.now(), Instant.ofEpochMilli(job.due().millis()))));
	}

	private DispatchResult record(JobRequest request, @Nullable Object key) {
		this.jobs.add(new CapturedJob(request, key));
		return new DispatchResult(Objects.requireNonNullElseGet(request.getId(), JobIds::next), Outcome.CREATED);
	}

	/** The id Redq gives a timer: {@code <job>:<key>}. */
	private static String timerId(String jobName, Object key) {
		return QueueNames.validateId(jobName + ":" + key);
	}

}
