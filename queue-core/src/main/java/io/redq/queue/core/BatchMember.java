package io.redq.queue.core;

/**
 * A member of a batch: where to find it.
 *
 * @param queue the member's queue
 * @param id the member's job id
 * @author Redq team
 * @since 0.1.0
 */
public record BatchMember(String queue, String id) {

}
