package io.redq.sample.images;

import org.jspecify.annotations.Nullable;

/**
 * An uploaded image.
 *
 * @param id its id
 * @param name its file name
 * @param status where its thumbnail is
 * @param thumbnail the thumbnail's file name, once made
 * @param error why no thumbnail could be made, once the job died
 * @author Redq team
 * @since 0.1.0
 */
public record Image(long id, String name, Status status, @Nullable String thumbnail, @Nullable String error) {

	/**
	 * Where an image's thumbnail is.
	 */
	public enum Status {

		/** Waiting for its thumbnail. */
		UPLOADED,

		/** Has its thumbnail. */
		DONE,

		/** No thumbnail could be made. */
		FAILED

	}

}
