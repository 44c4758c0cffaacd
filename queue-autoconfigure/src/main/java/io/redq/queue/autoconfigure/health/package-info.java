/**
 * Spring Boot health contribution for Redq.
 */
@NullMarked
package io.redq.queue.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
