/**
 * The Lua scripts that move jobs atomically between a queue's Redis structures.
 */
@NullMarked
package io.redq.queue.script;

import org.jspecify.annotations.NullMarked;
