/**
 * Exports of a customer's orders: a long job that reports its progress, keeps its cursor
 * in Redis so that its next attempt goes on after the last order it exported, and returns
 * a summary that a caller can wait for.
 */
@NullMarked
package io.redq.sample.exports;

import org.jspecify.annotations.NullMarked;
