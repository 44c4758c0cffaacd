package io.redq.sample.partners;

import java.time.Instant;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.listener.JobContext;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Calls to the shipping partner's API, simulated as rows of {@code partner_call}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class PartnerJobs {

	private static final Log logger = LogFactory.getLog(PartnerJobs.class);

	private final JdbcClient jdbc;

	public PartnerJobs(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Tell the partner to ship a paid order. The partner allows 5 calls in any second
	 * ({@code sample.partners.rate-limit}) across every instance of the shop: calls over
	 * the limit wait in line, without using an attempt, and start at the limit's pace.
	 * @param shipment the order to ship
	 * @param context the running job; its id is the idempotency key the partner gets
	 */
	@QueuedJob(name = "notify-partner", queue = "partners", rateLimit = "${sample.partners.rate-limit:5/1s}")
	public void notifyPartner(Shipment shipment, JobContext context) {
		this.jdbc.sql("""
				MERGE INTO partner_call USING (VALUES (CAST(:key AS VARCHAR(200)))) AS call (job_id)
				ON partner_call.job_id = call.job_id
				WHEN NOT MATCHED THEN INSERT (job_id, order_id, called_at) VALUES (:key, :order, :now)""")
			.param("key", context.getId())
			.param("order", shipment.orderId())
			.param("now", Instant.now())
			.update();
		logger.info("Asked the partner to ship order " + shipment.orderId());
	}

}
