/**
 * Recurring jobs: schedules, the scheduler that enqueues each tick once across all
 * application instances, and the API to list, pause, resume and trigger them.
 */
@NullMarked
package io.redq.queue.recurring;

import org.jspecify.annotations.NullMarked;
