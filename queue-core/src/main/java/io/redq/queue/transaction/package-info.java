/**
 * Dispatch that follows the application's transaction: jobs dispatched inside a
 * Spring-managed transaction are sent after it commits, or written to an outbox in it,
 * and dropped when it rolls back.
 */
@NullMarked
package io.redq.queue.transaction;

import org.jspecify.annotations.NullMarked;
