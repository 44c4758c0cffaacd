package io.redq.queue.outbox.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.jdbc.init.DatabaseInitializationProperties;

/**
 * Configuration properties of the transactional outbox, {@code redq.outbox.*}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@ConfigurationProperties("redq.outbox")
public class JobOutboxProperties {

	/**
	 * Whether jobs dispatched inside a transaction are written to the outbox table in it,
	 * instead of being sent after the commit.
	 */
	private boolean enabled = true;

	private final Relay relay = new Relay();

	private final Jdbc jdbc = new Jdbc();

	private final Health health = new Health();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Relay getRelay() {
		return this.relay;
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	public Health getHealth() {
		return this.health;
	}

	/**
	 * Settings of the relay that moves the outbox rows to Redis.
	 */
	public static class Relay {

		/**
		 * Whether this instance runs a relay. Several instances may run one each.
		 */
		private boolean enabled = true;

		/**
		 * Rows taken per pass; each row holds up to 1,000 jobs and timer calls of one
		 * queue.
		 */
		private int batchSize = 10;

		/**
		 * Wait after a pass that found fewer rows than a batch; a commit on this instance
		 * wakes the relay at once.
		 */
		private Duration pollInterval = Duration.ofSeconds(1);

		/**
		 * How long Redis remembers each row applied, so that a row applied again by a
		 * relay after another died before deleting it changes nothing. Redis holds about
		 * 134 bytes per step of a row for that time. A row that keeps failing is retried
		 * for this window less two minutes, then moved aside. At least 2 minutes.
		 */
		private Duration resendWindow = Duration.ofHours(1);

		/**
		 * Attempts at a row before it is moved aside to the redq_outbox_parked table;
		 * retries wait 1 second, doubling up to 1 minute.
		 */
		private int maxAttempts = 30;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public Duration getResendWindow() {
			return this.resendWindow;
		}

		public void setResendWindow(Duration resendWindow) {
			this.resendWindow = resendWindow;
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

	}

	/**
	 * Creation of the outbox table, as spring.sql.init and Spring Batch do it.
	 */
	public static class Jdbc extends DatabaseInitializationProperties {

		public Jdbc() {
			// a script that fails stops the startup, rather than the relay's first pass
			setContinueOnError(false);
		}

		@Override
		public String getDefaultSchemaLocation() {
			return "classpath:io/redq/queue/outbox/schema-@@platform@@.sql";
		}

	}

	/**
	 * Settings of the outbox's health.
	 */
	public static class Health {

		/**
		 * Longest wait of the oldest outbox row before the outbox's health is LAGGING.
		 */
		private Duration maxLag = Duration.ofMinutes(1);

		public Duration getMaxLag() {
			return this.maxLag;
		}

		public void setMaxLag(Duration maxLag) {
			this.maxLag = maxLag;
		}

	}

}
