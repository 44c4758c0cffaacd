package io.redq.queue.support.micrometer;

/**
 * The job an observation is about.
 *
 * @param queue the queue the job goes to or came from
 * @param name the job name
 * @param id the job id
 * @author Redq team
 * @since 0.1.0
 */
public record ObservedJob(String queue, String name, String id) {

}
