/**
 * Spring Boot Actuator endpoint for Redq.
 */
@NullMarked
package io.redq.queue.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
