/**
 * The sample shop: its application class and its web errors; each sub-package is one
 * flow.
 */
@NullMarked
package io.redq.sample;

import org.jspecify.annotations.NullMarked;
