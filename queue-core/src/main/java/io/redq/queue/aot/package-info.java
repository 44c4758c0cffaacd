/**
 * Hints for ahead-of-time processing and native images.
 */
@NullMarked
package io.redq.queue.aot;

import org.jspecify.annotations.NullMarked;
