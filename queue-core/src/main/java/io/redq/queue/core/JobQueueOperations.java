package io.redq.queue.core;

import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What an operator does with the queues: read their state, find a job, pause and resume a
 * queue, retry or delete dead jobs, trigger, reschedule or cancel a pending job, and
 * purge. The actuator endpoint, the health indicator and the metrics use it; applications
 * produce jobs with {@link JobDispatcher} instead.
 *
 * @author Redq team
 * @since 0.1.0
 * @see io.redq.queue.redis.RedisJobQueueOperations
 */
public interface JobQueueOperations {

	/**
	 * Count the jobs of a queue in each state.
	 * @param queue the queue
	 * @return the counts
	 */
	QueueStats stats(String queue);

	/**
	 * Count the jobs of a queue in each state and tell how long its oldest ready job has
	 * waited and whether the queue is paused, in one read.
	 * @param queue the queue
	 * @return the snapshot
	 */
	QueueSnapshot snapshot(String queue);

	/**
	 * Tell where a job is.
	 * @param queue the queue
	 * @param id the job id
	 * @return the job's status
	 */
	JobStatus status(String queue, String id);

	/**
	 * Tell how far a living job has come: the progress its handler last reported and the
	 * cursor it resumes at, as last written (at most once per
	 * {@code redq.progress.interval}).
	 * @param queue the queue
	 * @param id the job id
	 * @return the progress, or {@code null} when the job is gone or wrote none
	 */
	@Nullable JobProgress progress(String queue, String id);

	/**
	 * Move a pending job to a new due time in one step; a job that became ready but has
	 * not started counts as pending, and keeps its place in line when the new due time
	 * has come.
	 * @param queue the queue
	 * @param id the job id
	 * @param due the new due time
	 * @return whether the job was pending
	 */
	boolean reschedule(String queue, String id, Due due);

	/**
	 * Make a delayed job or timer ready now, in one step.
	 * @param queue the queue
	 * @param id the job id
	 * @return whether the job was delayed; a ready job keeps its place in line
	 */
	boolean trigger(String queue, String id);

	/**
	 * Cancel a pending (ready or delayed) job, or else the dispatch queued behind the
	 * running job with that id.
	 * @param queue the queue
	 * @param id the job id
	 * @return whether a pending job or queued dispatch was removed
	 */
	boolean cancel(String queue, String id);

	/**
	 * Pause a queue in every application instance: no job is reserved until it is
	 * resumed; running jobs finish.
	 * @param queue the queue
	 */
	void pause(String queue);

	/**
	 * Resume a paused queue.
	 * @param queue the queue
	 */
	void resume(String queue);

	/**
	 * Return whether a queue is paused.
	 * @param queue the queue
	 * @return whether it is paused
	 */
	boolean isPaused(String queue);

	/**
	 * Return the latest completed jobs of a queue, newest first; none unless the
	 * completed jobs are kept.
	 * @param queue the queue
	 * @param count the most to return, at least 1
	 * @return the completed jobs
	 */
	List<CompletedJob> completedJobs(String queue, int count);

	/**
	 * Page through a queue's dead jobs, newest first.
	 * @param queue the queue
	 * @param offset how many of the newest to skip, at least 0
	 * @param count the most to return, at least 1
	 * @return the dead jobs
	 */
	List<DeadJob> deadJobs(String queue, int offset, int count);

	/**
	 * Return one dead job.
	 * @param queue the queue
	 * @param id the job id
	 * @return the dead job, or {@code null} when no job with that id is dead
	 */
	@Nullable DeadJob deadJob(String queue, String id);

	/**
	 * Retry dead jobs with fresh attempts: they become ready at once.
	 * @param queue the queue
	 * @param ids the ids, or none for every job that was dead when the call began (a job
	 * it retried that dies again meanwhile is not retried again)
	 * @return how many jobs were retried
	 */
	long retryDead(String queue, Collection<String> ids);

	/**
	 * Delete dead jobs.
	 * @param queue the queue
	 * @param ids the ids, or none for every job that was dead when the call began
	 * @return how many jobs were deleted
	 */
	long deleteDead(String queue, Collection<String> ids);

	/**
	 * Delete every job of a queue: ready, delayed, running (their results will be
	 * refused) and dead. A paused queue stays paused.
	 * @param queue the queue
	 */
	void purge(String queue);

}
