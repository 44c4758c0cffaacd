/**
 * Job definitions, listener endpoints, their registry and the container factory.
 */
@NullMarked
package io.redq.queue.config;

import org.jspecify.annotations.NullMarked;
