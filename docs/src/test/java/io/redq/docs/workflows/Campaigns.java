package io.redq.docs.workflows;

import java.util.ArrayList;
import java.util.List;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.BatchMember;
import io.redq.queue.core.BatchMemberResult;
import io.redq.queue.core.BatchRequest;
import io.redq.queue.core.BatchResult;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.listener.JobBatch;
import io.redq.queue.listener.JobContext;

import org.springframework.stereotype.Service;

/**
 * The batch examples of the Batches page, compiled for the page that quotes them.
 *
 * @author Redq team
 */
@Service
class Campaigns {

	private final JobDispatcher dispatcher;

	private final List<MailReceipt> receipts = new ArrayList<>();

	Campaigns(JobDispatcher dispatcher) {
		this.dispatcher = dispatcher;
	}

	String send(List<Invoice> invoices, String campaignId) {
		JobDispatcher dispatcher = this.dispatcher;
		// tag::dispatch[]
		List<JobRequest> mails = invoices.stream()
			.map((invoice) -> JobRequest.of("send-invoice", invoice).build())
			.toList();
		BatchResult batch = dispatcher.dispatchBatch(BatchRequest.of(mails)
			.onSuccess(JobRequest.of("report-campaign", campaignId).build())
			.onComplete(JobRequest.of("close-campaign", campaignId).build())
			.build());
		String batchId = batch.batchId();
		// end::dispatch[]
		return batchId;
	}

	// tag::callback[]
	@QueuedJob(queue = "reports")
	void closeCampaign(String campaignId, JobContext context) {
		String batchId = context.getHeaders().get(BatchRequest.BATCH_HEADER);
		BatchStatus batch = dispatcher.findBatch(batchId).orElseThrow();
		List<BatchMember> dead = dispatcher.deadBatchMembers(batchId, 0, 100);
		// tell the campaign's owner how it went
	}
	// end::callback[]

	// tag::results[]
	@QueuedJob(queue = "reports")
	void reportCampaign(String campaignId, JobContext context) {
		JobBatch batch = context.getBatch().orElseThrow();
		for (int offset = 0;; offset += 500) {
			List<BatchMemberResult<MailReceipt>> page = batch.getResults(MailReceipt.class, offset, 500);
			page.forEach((sent) -> sent.value().ifPresent(this.receipts::add));
			if (page.size() < 500) {
				break;
			}
		}
	}
	// end::results[]

	record MailReceipt(String invoice, String messageId) {
	}

	record Invoice(String number, String email) {
	}

}
