/**
 * Test support that gives tests a real Redis server: {@code REDQ_TEST_REDIS_URL}, else a
 * local {@code redis-server}, else a Testcontainers container; and {@code redis-server}
 * processes of the test's own (a server to kill, pause and restart, a cluster, a Sentinel
 * group), administered through Lettuce.
 *
 * @author Redq team
 * @since 0.1.0
 */
@NullMarked
package io.redq.queue.test;

import org.jspecify.annotations.NullMarked;
