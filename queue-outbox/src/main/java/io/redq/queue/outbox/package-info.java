/**
 * Transactional outbox: jobs dispatched inside a transaction are written to a table of
 * the application's JDBC database in that transaction, and a relay moves them to Redis.
 */
@NullMarked
package io.redq.queue.outbox;

import org.jspecify.annotations.NullMarked;
