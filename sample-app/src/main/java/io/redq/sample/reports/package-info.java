/**
 * A recurring sales report: every instance schedules it, and each tick runs once across
 * all of them.
 */
@NullMarked
package io.redq.sample.reports;

import org.jspecify.annotations.NullMarked;
