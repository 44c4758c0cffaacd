package io.redq.sample.images;

import java.io.IOException;
import java.time.Instant;

import io.redq.queue.annotation.Backoff;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.listener.JobContext;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;

/**
 * The steps of an image's publication chain, simulated: an image whose name contains
 * {@code cmyk} is resized but cannot take the watermark, so its chain fails at the second
 * step. Each step gets 3 attempts, the second after {@code sample.images.retry-delay}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class PublicationJobs {

	/** The first step: resize the image. */
	public static final String RESIZE_IMAGE = "resize-image";

	/** The second step: put the shop's watermark on the resized image. */
	public static final String WATERMARK_IMAGE = "watermark-image";

	/** The last step: publish the watermarked image. */
	public static final String PUBLISH_IMAGE = "publish-image";

	/** The chain's on-failure job: mark the publication broken. */
	public static final String REPORT_BROKEN_IMAGE = "report-broken-image";

	private static final Log logger = LogFactory.getLog(PublicationJobs.class);

	private final Images images;

	private final Publications publications;

	private final JobDispatcher dispatcher;

	public PublicationJobs(Images images, Publications publications, JobDispatcher dispatcher) {
		this.images = images;
		this.publications = publications;
		this.dispatcher = dispatcher;
	}

	/**
	 * Resize an image for the shop's pages.
	 * @param imageId the image
	 */
	@QueuedJob(name = RESIZE_IMAGE, queue = "images", maxAttempts = 3,
			backoff = @Backoff(delay = "${sample.images.retry-delay:2s}"))
	public void resize(long imageId) {
		Instant started = Instant.now();
		this.images.find(imageId);
		this.publications.stepRan(imageId, "resize", started);
	}

	/**
	 * Put the shop's watermark on a resized image.
	 * @param imageId the image
	 * @throws IOException when the image cannot take the watermark
	 */
	@QueuedJob(name = WATERMARK_IMAGE, queue = "images", maxAttempts = 3,
			backoff = @Backoff(delay = "${sample.images.retry-delay:2s}"))
	public void watermark(long imageId) throws IOException {
		Instant started = Instant.now();
		Image image = this.images.find(imageId);
		if (image.name().contains("cmyk")) {
			throw new IOException("Cannot watermark " + image.name() + ": CMYK images are not supported (simulated)");
		}
		this.publications.stepRan(imageId, "watermark", started);
	}

	/**
	 * Publish a watermarked image.
	 * @param imageId the image
	 */
	@QueuedJob(name = PUBLISH_IMAGE, queue = "images", maxAttempts = 3,
			backoff = @Backoff(delay = "${sample.images.retry-delay:2s}"))
	public void publish(long imageId) {
		Instant started = Instant.now();
		Image image = this.images.find(imageId);
		this.publications.published(imageId, "https://cdn.shop.example/images/" + image.name());
		this.publications.stepRan(imageId, "publish", started);
	}

	/**
	 * Mark a publication broken, with the reason its chain failed: enqueued once, when a
	 * step used its attempts.
	 * @param imageId the image
	 * @param context the job, which carries its chain's id
	 */
	@QueuedJob(name = REPORT_BROKEN_IMAGE, queue = "images")
	public void reportBroken(long imageId, JobContext context) {
		Instant started = Instant.now();
		String chainId = context.getHeaders().get(ChainRequest.CHAIN_HEADER);
		String reason = this.dispatcher.findChain(chainId)
			.map(ChainStatus::reason)
			.orElse("chain " + chainId + " failed and expired");
		this.publications.broken(imageId, reason);
		this.publications.stepRan(imageId, "report-broken", started);
		logger.warn("Image " + imageId + " was not published: " + reason);
	}

}
