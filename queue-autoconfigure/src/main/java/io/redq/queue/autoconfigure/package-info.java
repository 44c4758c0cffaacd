/**
 * Spring Boot auto-configuration for Redq.
 */
@NullMarked
package io.redq.queue.autoconfigure;

import org.jspecify.annotations.NullMarked;
