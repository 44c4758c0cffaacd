package io.redq.docs.workflows;

import java.util.function.UnaryOperator;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.listener.JobContext;

import org.springframework.stereotype.Service;

/**
 * The chain examples of the Workflows page, compiled for the page that quotes them.
 *
 * @author Redq team
 */
@Service
class ImagePipeline {

	private final JobDispatcher dispatcher;

	private final UnaryOperator<ResizedImage> watermarks = UnaryOperator.identity();

	ImagePipeline(JobDispatcher dispatcher) {
		this.dispatcher = dispatcher;
	}

	String publish(String imageId) {
		JobDispatcher dispatcher = this.dispatcher;
		// tag::dispatch[]
		ChainResult chain = dispatcher.dispatchChain(ChainRequest
			.of(JobRequest.of("resize-image", imageId).build(), JobRequest.of("watermark-image", imageId).build(),
					JobRequest.of("publish-image", imageId).build())
			.onFailure(JobRequest.of("report-broken-image", imageId).build())
			.build());
		String chainId = chain.chainId();
		// end::dispatch[]
		return chainId;
	}

	// tag::previous[]
	@QueuedJob(name = "watermark-image", queue = "images")
	ResizedImage watermarkImage(String imageId, JobContext context) {
		ResizedImage resized = context.getPreviousResult(ResizedImage.class)
			.orElseThrow(() -> new IllegalStateException("No result of resizing image " + imageId));
		return this.watermarks.apply(resized);
	}
	// end::previous[]

	record ResizedImage(String url, int width, int height) {
	}

	// tag::failure[]
	@QueuedJob(queue = "reports")
	void reportBrokenImage(String imageId, JobContext context) {
		String chainId = context.getHeaders().get(ChainRequest.CHAIN_HEADER);
		ChainStatus chain = dispatcher.findChain(chainId).orElseThrow();
		String why = chain.reason(); // e.g. "step 2 (job ...:2 of queue 'images') died"
		// tell the image's owner
	}
	// end::failure[]

}
