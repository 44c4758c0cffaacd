/**
 * Support for testing applications that use Redq: a Redis for Spring Boot tests and
 * helpers that make job tests short and deterministic.
 */
@NullMarked
package io.redq.queue.testkit;

import org.jspecify.annotations.NullMarked;
