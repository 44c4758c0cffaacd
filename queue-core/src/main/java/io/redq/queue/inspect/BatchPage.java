package io.redq.queue.inspect;

import java.util.List;

/**
 * A page of the batches, newest first.
 *
 * @param total how many batches are listed, those that expired since their last read
 * included
 * @param offset how many newer ones the page skipped
 * @param batches the batches of the page: fewer than asked for when some listed had
 * expired (they are dropped from the list)
 * @author Redq team
 * @since 0.1.0
 */
public record BatchPage(long total, int offset, List<BatchView> batches) {
}
