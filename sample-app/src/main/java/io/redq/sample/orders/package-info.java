/**
 * Orders: placing one saves it in a transaction, which sends its invoice and sets a
 * 30-minute payment timer once it commits (and neither if it rolls back); paying cancels
 * the timer, and an order still unpaid when it fires is cancelled exactly once.
 */
@NullMarked
package io.redq.sample.orders;

import org.jspecify.annotations.NullMarked;
