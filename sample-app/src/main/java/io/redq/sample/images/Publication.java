package io.redq.sample.images;

import io.redq.queue.core.ChainStatus;
import org.jspecify.annotations.Nullable;

/**
 * An image's publication: a chain of resize, watermark and publish.
 *
 * @param imageId the image
 * @param status where the publication is
 * @param url where the image is published, once it is
 * @param error why the publication broke, once it did
 * @param chain the chain as Redq keeps it, or {@code null} before it is dispatched and
 * once it expired after it ended
 * @author Redq team
 * @since 0.1.0
 */
public record Publication(long imageId, Status status, @Nullable String url, @Nullable String error,
		@Nullable ChainStatus chain) {

	/**
	 * Where an image's publication is.
	 */
	public enum Status {

		/** Its chain runs. */
		PUBLISHING,

		/** Every step succeeded: the image is published. */
		PUBLISHED,

		/** A step used its attempts: the later steps never ran. */
		BROKEN

	}

}
