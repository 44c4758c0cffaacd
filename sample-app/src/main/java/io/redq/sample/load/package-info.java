/**
 * The load generator: runs the shop's flows at a rate ({@code sample.load.rate}, or
 * {@code PUT /load?rate=50}) in a mix of kinds ({@code sample.load.mix.*}), so that the
 * dashboard and the meters move.
 */
@NullMarked
package io.redq.sample.load;

import org.jspecify.annotations.NullMarked;
