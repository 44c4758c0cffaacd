package io.redq.docs.recurring;

import java.time.Instant;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.annotation.Recurring;
import io.redq.queue.recurring.MissedTicks;
import io.redq.queue.recurring.RecurringJobInfo;
import io.redq.queue.recurring.RecurringJobs;

/**
 * The examples of the Recurring jobs page, compiled for the page that quotes them.
 *
 * @author Redq team
 */
class RecurringExamples {

	// tag::jobs[]
	@QueuedJob(queue = "reports")
	@Recurring(cron = "0 0 6 * * MON-FRI", zone = "Europe/Berlin")
	void dailyReport(Instant tick) {
		// write the report of the day before the tick
	}

	@QueuedJob(queue = "maintenance", timeout = "5m")
	@Recurring(fixedRate = "30s", missedTicks = MissedTicks.SKIP)
	void purgeExpiredSessions() {
		// delete the sessions that expired
	}
	// end::jobs[]

	void operate(RecurringJobs recurringJobs) {
		// @formatter:off
		// tag::operations[]
		for (RecurringJobInfo job : recurringJobs.list()) {
			// name, queue, schedule (cron and zone, or fixed rate), missedTicks, nextTick, paused
		}
		recurringJobs.pause("daily-report");      // true if it was running
		recurringJobs.resume("daily-report");     // true if it was paused
		String id = recurringJobs.trigger("daily-report");
		// end::operations[]
		// @formatter:on
	}

}
