package io.redq.sample.mail;

import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * A simulated mail server: a sent mail is a row of {@code sent_mail}. It refuses a share
 * of the sends ({@code sample.mail.failure-rate}) with a {@link MailServerBusyException},
 * as a busy server would.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Component
public class Mailer {

	private static final Log logger = LogFactory.getLog(Mailer.class);

	private final JdbcClient jdbc;

	private final MailProperties properties;

	public Mailer(JdbcClient jdbc, MailProperties properties) {
		this.jdbc = jdbc;
		this.properties = properties;
	}

	/**
	 * Send a mail once per idempotency key: a job that runs again after its mail went out
	 * (its worker died before the job was acknowledged) sends nothing twice.
	 * @param idempotencyKey the job id, the same on every attempt
	 * @param recipient whom to send it to
	 * @param subject what it says
	 * @throws MailServerBusyException when the simulated server refuses it
	 */
	public void send(String idempotencyKey, String recipient, String subject) {
		if (ThreadLocalRandom.current().nextDouble() < this.properties.failureRate()) {
			throw new MailServerBusyException(recipient);
		}
		int sent = this.jdbc.sql("""
				MERGE INTO sent_mail USING (VALUES (CAST(:key AS VARCHAR(200)))) AS mail (job_id)
				ON sent_mail.job_id = mail.job_id
				WHEN NOT MATCHED THEN INSERT (job_id, recipient, subject, sent_at)
				VALUES (:key, :recipient, :subject, :now)""")
			.param("key", idempotencyKey)
			.param("recipient", recipient)
			.param("subject", subject)
			.param("now", Instant.now())
			.update();
		if (sent == 1) {
			logger.info("Sent '" + subject + "' to " + recipient);
		}
	}

}
