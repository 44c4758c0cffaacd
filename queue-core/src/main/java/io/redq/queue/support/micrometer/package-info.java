/**
 * Micrometer metrics and observations for Redq.
 */
@NullMarked
package io.redq.queue.support.micrometer;

import org.jspecify.annotations.NullMarked;
