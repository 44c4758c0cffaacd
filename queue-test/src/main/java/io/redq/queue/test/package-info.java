/**
 * Test support that gives tests a real Redis server: {@code REDIS_URL}, else a local
 * {@code redis-server}, else a Testcontainers container.
 *
 * @author Redq team
 * @since 0.1.0
 */
@NullMarked
package io.redq.queue.test;

import org.jspecify.annotations.NullMarked;
