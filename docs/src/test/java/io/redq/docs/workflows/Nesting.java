package io.redq.docs.workflows;

import java.util.List;

import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;

/**
 * The nesting examples of the Workflows page, compiled for the page that quotes them.
 *
 * @author Redq team
 */
class Nesting {

	private final JobDispatcher dispatcher;

	Nesting(JobDispatcher dispatcher) {
		this.dispatcher = dispatcher;
	}

	void nest(String campaignId, String fileId, JobRequest resize, JobRequest watermark, JobRequest publish,
			List<JobRequest> thumbnails, List<JobRequest> invoiceMails) {
		JobDispatcher dispatcher = this.dispatcher;
		// tag::nesting[]
		dispatcher.dispatchBatch(BatchRequest.builder()
			.member(JobRequest.of("mail-summary", campaignId).build())
			.chain(ChainRequest.of(resize, watermark, publish).build())
			.batch(BatchRequest.of(thumbnails).failFast().build())
			.onSuccess(JobRequest.of("report-done", campaignId).build())
			.onComplete(JobRequest.of("close-campaign", campaignId).build())
			.build());

		dispatcher.dispatchChain(ChainRequest.builder()
			.step(JobRequest.of("import", fileId).build())
			.step(BatchRequest.of(invoiceMails).build())
			.step(JobRequest.of("archive", fileId).build())
			.onFailure(JobRequest.of("report-import-failed", fileId).build())
			.build());
		// end::nesting[]
	}

	void nestDeeper(String campaignId, List<JobRequest> lowResolution, List<JobRequest> highResolution,
			JobRequest resize, JobRequest publish) {
		JobDispatcher dispatcher = this.dispatcher;
		// tag::deeper[]
		dispatcher.dispatchBatch(BatchRequest.builder()
			.member(JobRequest.of("mail-summary", campaignId).build())
			.chain(ChainRequest.builder()
				.step(resize)
				.step(BatchRequest.builder()
					.batch(BatchRequest.of(lowResolution).build())
					.batch(BatchRequest.of(highResolution).failFast().build())
					.build())
				.step(publish)
				.build())
			.onComplete(JobRequest.of("close-campaign", campaignId).build())
			.build());
		// end::deeper[]
	}

}
