/**
 * The shipping partner: its API takes a few calls per second across all of our instances,
 * so its job is rate-limited in Redis rather than per instance.
 */
@NullMarked
package io.redq.sample.partners;

import org.jspecify.annotations.NullMarked;
