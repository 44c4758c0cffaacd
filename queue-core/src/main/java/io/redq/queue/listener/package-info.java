/**
 * Listener containers: reserving, running, acknowledging and retrying jobs.
 */
@NullMarked
package io.redq.queue.listener;

import org.jspecify.annotations.NullMarked;
