/**
 * Micrometer observations of dispatching and processing jobs: their contexts, conventions
 * and documentation.
 */
@NullMarked
package io.redq.queue.support.micrometer;

import org.jspecify.annotations.NullMarked;
