package io.redq.docs.migrating;

// The "Migrating" example for JobRunr users, which the page quotes whole: the jobs of a
// lambda become named handlers, dispatched by name with a payload.
// tag::class[]
import java.time.Instant;

import io.redq.queue.annotation.Backoff;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.annotation.Recurring;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.listener.JobContext;

import org.springframework.stereotype.Service;

@Service
class NewsletterJobs {

	private final JobDispatcher dispatcher;

	private final Mailer mailer;

	NewsletterJobs(JobDispatcher dispatcher, Mailer mailer) {
		this.dispatcher = dispatcher;
		this.mailer = mailer;
	}

	// was: BackgroundJob.enqueue(() -> newsletterJobs.sendWelcome(userId))
	void userSignedUp(long userId) {
		this.dispatcher.dispatch("send-welcome", userId);
	}

	// was: BackgroundJob.schedule(sendAt, () -> newsletterJobs.sendIssue(issue))
	void issuePlanned(String issue, Instant sendAt) {
		this.dispatcher.dispatch(JobRequest.of("send-issue", issue).id("issue-" + issue).at(sendAt).build());
	}

	// was: @Job(name = "Welcome mail", retries = 4): 4 retries after the first attempt
	@QueuedJob(name = "send-welcome", queue = "mail", maxAttempts = 5,
			backoff = @Backoff(delay = "10s", multiplier = "3", maxDelay = "1h"))
	void sendWelcome(long userId, JobContext context) {
		this.mailer.sendWelcome(userId, context.getId());
	}

	@QueuedJob(name = "send-issue", queue = "mail")
	void sendIssue(String issue) {
		this.mailer.sendIssue(issue);
	}

	// was: @Recurring(id = "weekly-digest", cron = "0 7 * * MON", zone = "Europe/Paris")
	@QueuedJob(name = "weekly-digest", queue = "mail")
	@Recurring(cron = "0 0 7 * * MON", zone = "Europe/Paris")
	void weeklyDigest(Instant tick) {
		this.mailer.sendDigest(tick);
	}

}
// end::class[]
