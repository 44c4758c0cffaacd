/**
 * Shared value types and helpers.
 */
@NullMarked
package io.redq.queue.support;

import org.jspecify.annotations.NullMarked;
