package io.redq.queue.core;

import java.util.List;

/**
 * What a chain dispatch did: the chain id, by which it is read and cancelled, and the id
 * each step's job has or will have.
 *
 * @param chainId the chain id
 * @param stepIds the steps' job ids, in the order they run: the first is enqueued, the
 * others are once the step before succeeded
 * @author Redq team
 * @since 0.1.0
 */
public record ChainResult(String chainId, List<String> stepIds) {

}
