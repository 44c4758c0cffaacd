/**
 * A worker application for the fault-injection suite: it runs {@code chaos} jobs and
 * records each attempt in a ledger file outside Redis.
 *
 * @author Redq team
 * @since 0.1.0
 */
@NullMarked
package io.redq.queue.chaos;

import org.jspecify.annotations.NullMarked;
