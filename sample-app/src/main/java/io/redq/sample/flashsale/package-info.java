/**
 * A flash sale: a few items and a burst of buyers. Each claim is a job, exclusive per
 * item, so that claims wait in Redis rather than on worker threads, and decides under a
 * Redis lock that also keeps out restocks and every other instance: never oversold.
 */
@NullMarked
package io.redq.sample.flashsale;

import org.jspecify.annotations.NullMarked;
