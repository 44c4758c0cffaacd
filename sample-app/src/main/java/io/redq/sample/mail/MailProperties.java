package io.redq.sample.mail;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the simulated mail server.
 *
 * @param failureRate Share of sends that the simulated mail server refuses, from 0 to 1,
 * so that jobs are retried; 0 refuses none.
 * @author Redq team
 * @since 0.1.0
 */
@ConfigurationProperties("sample.mail")
public record MailProperties(@DefaultValue("0") double failureRate) {

	public MailProperties {
		if (failureRate < 0 || failureRate > 1) {
			throw new IllegalArgumentException(
					"sample.mail.failure-rate must be between 0 and 1, but was " + failureRate);
		}
	}

}
