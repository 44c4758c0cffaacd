/**
 * Producing side and the Redis data model: the dispatcher, job requests and queue
 * operations.
 */
@NullMarked
package io.redq.queue.core;

import org.jspecify.annotations.NullMarked;
