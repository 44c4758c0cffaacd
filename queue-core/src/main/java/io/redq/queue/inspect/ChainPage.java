package io.redq.queue.inspect;

import java.util.List;

/**
 * A page of the chains, newest first.
 *
 * @param total how many chains are listed, those that expired since their last read
 * included
 * @param offset how many newer ones the page skipped
 * @param chains the chains of the page: fewer than asked for when some listed had expired
 * (they are dropped from the list)
 * @author Redq team
 * @since 0.1.0
 */
public record ChainPage(long total, int offset, List<ChainView> chains) {
}
