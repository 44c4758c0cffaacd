/**
 * Auctions: an auction's end is a timer keyed by its id; a bid in the last 10 seconds
 * pushes the end back and moves the timer, and the end closes the auction once, never
 * before its time.
 */
@NullMarked
package io.redq.sample.auctions;

import org.jspecify.annotations.NullMarked;
