/**
 * The catalog and its search index: every edit of a product asks for a reindex, and a
 * debounce collapses a burst of edits into one run with what the product holds then.
 */
@NullMarked
package io.redq.sample.catalog;

import org.jspecify.annotations.NullMarked;
