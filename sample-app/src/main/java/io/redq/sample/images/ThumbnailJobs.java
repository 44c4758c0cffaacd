package io.redq.sample.images;

import java.io.IOException;

import io.redq.queue.annotation.Backoff;
import io.redq.queue.annotation.DeadJobHandler;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.listener.JobContext;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;

/**
 * Thumbnails, simulated: an image whose name contains {@code corrupt} cannot be read, and
 * one whose name contains {@code flaky} times out on its first attempt.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class ThumbnailJobs {

	/** The thumbnail's job. */
	public static final String MAKE_THUMBNAIL = "make-thumbnail";

	private static final Log logger = LogFactory.getLog(ThumbnailJobs.class);

	private final Images images;

	public ThumbnailJobs(Images images) {
		this.images = images;
	}

	/**
	 * Make an image's thumbnail: 3 attempts, the second after
	 * {@code sample.images.retry-delay} and the third after twice that.
	 * @param imageId the image
	 * @param context the running job
	 * @throws IOException when the image cannot be read
	 */
	@QueuedJob(name = MAKE_THUMBNAIL, queue = "images", maxAttempts = 3,
			backoff = @Backoff(delay = "${sample.images.retry-delay:2s}", multiplier = "2"))
	public void makeThumbnail(long imageId, JobContext context) throws IOException {
		Image image = this.images.find(imageId);
		if (image.name().contains("corrupt")) {
			throw new IOException("Cannot decode " + image.name() + ": not an image (simulated)");
		}
		if (image.name().contains("flaky") && context.getAttempt() == 1) {
			throw new IOException("Reading " + image.name() + " from storage timed out (simulated)");
		}
		this.images.thumbnailMade(imageId, "thumb-" + image.name());
	}

	/**
	 * Give up on an image whose thumbnail failed every attempt: called once, after the
	 * job was recorded in the dead set, where an operator can retry it.
	 * @param imageId the image
	 * @param context the dead job
	 * @param error what failed its last attempt
	 */
	@DeadJobHandler(MAKE_THUMBNAIL)
	public void thumbnailFailed(long imageId, JobContext context, Throwable error) {
		this.images.thumbnailFailed(imageId, error.getMessage());
		logger.warn("No thumbnail for image " + imageId + " after " + context.getAttempt() + " attempts: "
				+ error.getMessage());
	}

}
