package io.redq.sample.mail;

/**
 * Thrown when the simulated mail server refuses a send; the job is retried.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class MailServerBusyException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	MailServerBusyException(String recipient) {
		super("Mail server busy (simulated): the mail to " + recipient + " was not sent, try again later");
	}

}
