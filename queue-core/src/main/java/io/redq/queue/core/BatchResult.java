package io.redq.queue.core;

import java.util.List;

/**
 * What a batch dispatch did: the batch id, by which it is read and cancelled, and each
 * member's id.
 *
 * @param batchId the batch id
 * @param members what happened to each member: the jobs in the order of the request, then
 * the nested batches, then the chains, each under its own id
 * @author Redq team
 * @since 0.1.0
 */
public record BatchResult(String batchId, List<DispatchResult> members) {

}
