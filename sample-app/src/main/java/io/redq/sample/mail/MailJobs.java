package io.redq.sample.mail;

import java.util.List;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.listener.JobContext;

import org.springframework.stereotype.Component;
import org.springframework.util.Assert;

/**
 * Mails at two priorities in the {@code mail} queue: a waiting user gets a password reset
 * before a backlog of newsletters, while newsletters still get a share of the workers.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class MailJobs {

	/** The most readers one newsletter call may name. */
	public static final int MAX_READERS = 1000;

	private final Mailer mailer;

	private final JobDispatcher dispatcher;

	public MailJobs(Mailer mailer, JobDispatcher dispatcher) {
		this.mailer = mailer;
		this.dispatcher = dispatcher;
	}

	/**
	 * Send a password reset.
	 * @param email the user's email
	 * @return the job id
	 */
	public String requestPasswordReset(String email) {
		Assert.hasText(email, "email is required");
		return this.dispatcher.dispatch("send-password-reset", email).id();
	}

	/**
	 * Send a newsletter: one job per reader, all dispatched in one round trip.
	 * @param subject the newsletter's subject
	 * @param readers the readers' emails
	 * @return the job ids, in the order of the readers
	 */
	public List<String> sendNewsletter(String subject, List<String> readers) {
		Assert.hasText(subject, "subject is required");
		Assert.isTrue(readers != null && !readers.isEmpty() && readers.size() <= MAX_READERS,
				() -> "readers must list 1 to " + MAX_READERS + " emails; send a larger newsletter in parts");
		List<JobRequest> jobs = readers.stream()
			.map((email) -> JobRequest.of("send-newsletter", new Newsletter(email, subject)).build())
			.toList();
		return this.dispatcher.dispatchAll(jobs).stream().map(DispatchResult::id).toList();
	}

	/**
	 * Mail a password reset, at priority 8: a user waits for it.
	 * @param email whom to send it to
	 * @param context the running job; its id is the idempotency key
	 */
	@QueuedJob(name = "send-password-reset", queue = "mail", priority = 8)
	public void sendPasswordReset(String email, JobContext context) {
		this.mailer.send(context.getId(), email, "Reset your password");
	}

	/**
	 * Mail a newsletter to one reader, at priority 2: nobody waits for it.
	 * @param newsletter the reader and the subject
	 * @param context the running job; its id is the idempotency key
	 */
	@QueuedJob(name = "send-newsletter", queue = "mail", priority = 2)
	public void sendNewsletter(Newsletter newsletter, JobContext context) {
		this.mailer.send(context.getId(), newsletter.email(), newsletter.subject());
	}

}
