package io.redq.queue.inspect;

import io.redq.queue.core.QueueSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * One shard of a queue (see "Scaling out"): where it lives and what it holds.
 *
 * @param hashTag the hash tag its keys share, e.g. <code>{orders#2}</code>; the first
 * shard's is the queue's own, <code>{orders}</code>
 * @param slot its Redis Cluster slot, or {@code null} without a cluster
 * @param master the address ({@code host:port}) of the master that serves the slot, or
 * {@code null} without a cluster or while no master serves it
 * @param snapshot its counts, oldest ready age and pause state
 * @author Redq team
 * @since 0.1.0
 */
public record ShardView(String hashTag, @Nullable Integer slot, @Nullable String master, QueueSnapshot snapshot) {

}
