/**
 * Contact imports, one job per row, grouped by tenant: the groups take turns, so that one
 * tenant's import of thousands of rows delays another tenant's by a few rows, not by its
 * backlog, and {@code redq.queues.imports.group-max-running} caps how many workers one
 * tenant holds.
 */
@NullMarked
package io.redq.sample.imports;

import org.jspecify.annotations.NullMarked;
