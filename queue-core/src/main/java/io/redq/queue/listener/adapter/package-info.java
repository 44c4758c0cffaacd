/**
 * Adapters that invoke {@code @QueuedJob} methods.
 */
@NullMarked
package io.redq.queue.listener.adapter;

import org.jspecify.annotations.NullMarked;
