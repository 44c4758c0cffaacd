package io.redq.sample.mail;

import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Password resets and newsletters over HTTP. Writes take JSON only, which a cross-site
 * form cannot send.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
public class MailController {

	private final MailJobs mail;

	public MailController(MailJobs mail) {
		this.mail = mail;
	}

	/**
	 * Send a password reset.
	 * @param request the user's email
	 * @return the job id
	 */
	@PostMapping(path = "/password-resets", consumes = MediaType.APPLICATION_JSON_VALUE)
	@ResponseStatus(HttpStatus.ACCEPTED)
	public Accepted resetPassword(@RequestBody PasswordReset request) {
		return new Accepted(List.of(this.mail.requestPasswordReset(request.email())));
	}

	/**
	 * Send a newsletter, one job per reader.
	 * @param request the subject and the readers
	 * @return the job ids
	 */
	@PostMapping(path = "/newsletters", consumes = MediaType.APPLICATION_JSON_VALUE)
	@ResponseStatus(HttpStatus.ACCEPTED)
	public Accepted sendNewsletter(@RequestBody NewsletterRequest request) {
		return new Accepted(this.mail.sendNewsletter(request.subject(), request.readers()));
	}

	/**
	 * A password reset request.
	 *
	 * @param email the user's email
	 */
	public record PasswordReset(String email) {
	}

	/**
	 * A newsletter request.
	 *
	 * @param subject the subject
	 * @param readers the readers' emails
	 */
	public record NewsletterRequest(String subject, List<String> readers) {
	}

	/**
	 * The answer to a request that dispatched jobs.
	 *
	 * @param jobIds the ids of the jobs, in the order of the request
	 */
	public record Accepted(List<String> jobIds) {
	}

}
