/**
 * The {@code @QueuedJob} programming model and its bootstrap.
 */
@NullMarked
package io.redq.queue.annotation;

import org.jspecify.annotations.NullMarked;
