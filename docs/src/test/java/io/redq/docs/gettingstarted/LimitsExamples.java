package io.redq.docs.gettingstarted;

// tag::limits[]
import io.redq.queue.annotation.QueuedJob;
// end::limits[]

/**
 * The limits of the Getting started page, compiled for the page that quotes them.
 *
 * @author Redq team
 */
class LimitsExamples {

	// tag::limits[]
	// at most one job per customer at a time ("without overlapping"); others wait
	@QueuedJob(name = "ship-order", queue = "orders", exclusiveKey = "customerId()")
	void shipOrder(Order order) {
		// ship it
	}

	// at most 5 calls to the partner at once, cluster-wide
	@QueuedJob(name = "call-partner-api", maxRunning = "5")
	void callPartner(PartnerRequest request) {
		// call the partner
	}

	// at most 100 starts in any sliding second, cluster-wide
	@QueuedJob(name = "send-sms", rateLimit = "100/1s")
	void sendSms(Sms sms) {
		// send it
	}
	// end::limits[]

	record Order(String id, String customerId) {
	}

	record PartnerRequest(String body) {
	}

	record Sms(String to, String text) {
	}

}
