/**
 * Application events of queues and their listener containers.
 */
@NullMarked
package io.redq.queue.event;

import org.jspecify.annotations.NullMarked;
