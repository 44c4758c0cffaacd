/**
 * Spring Boot auto-configuration of the transactional outbox.
 */
@NullMarked
package io.redq.queue.outbox.autoconfigure;

import org.jspecify.annotations.NullMarked;
