/**
 * Images: a thumbnail job that fails on some inputs. A flaky read is retried after a
 * backoff and succeeds; a corrupt image fails every attempt, ends in the dead set, and
 * its {@code @DeadJobHandler} marks the image as failed. A publication is a chain of
 * resize, watermark and publish: a step that dies ends it, the later steps never run, and
 * its on-failure job marks the publication broken.
 */
@NullMarked
package io.redq.sample.images;

import org.jspecify.annotations.NullMarked;
