/**
 * Distributed locks on Redis: owner tokens, leases measured by Redis, a renewal watchdog
 * and fencing tokens.
 */
@NullMarked
package io.redq.queue.lock;

import org.jspecify.annotations.NullMarked;
