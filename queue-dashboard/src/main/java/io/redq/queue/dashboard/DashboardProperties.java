package io.redq.queue.dashboard;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.Assert;

/**
 * Configuration of the Redq dashboard, under {@code redq.dashboard}.
 *
 * @author Redq team
 * @since 0.1.0
 */
@ConfigurationProperties("redq.dashboard")
public class DashboardProperties {

	/**
	 * Whether to serve the dashboard. Off by default: it shows job payloads and errors,
	 * so turn it on deliberately and restrict its path (see the docs' security section).
	 */
	private boolean enabled;

	/**
	 * The path the dashboard is served under, starting with '/'.
	 */
	private String path = "/redq";

	/**
	 * Whether the dashboard only shows the queues. When false it also retries, deletes,
	 * triggers, cancels and reschedules jobs, pauses and resumes queues and purges them.
	 */
	private boolean readOnly = true;

	/**
	 * How long the per-hour statistics of the application's queues are kept in Redis, in
	 * whole hours: from 1 hour to 30 days. Each queue keeps 60 per-minute buckets and one
	 * per hour.
	 */
	private Duration statisticsRetention = Duration.ofDays(7);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		Assert.isTrue(path.startsWith("/") && (path.length() == 1 || !path.endsWith("/")) && path.length() > 1,
				() -> "redq.dashboard.path must start with '/', be more than '/' and not end with '/', not '" + path
						+ "'");
		this.path = path;
	}

	public boolean isReadOnly() {
		return this.readOnly;
	}

	public void setReadOnly(boolean readOnly) {
		this.readOnly = readOnly;
	}

	public Duration getStatisticsRetention() {
		return this.statisticsRetention;
	}

	public void setStatisticsRetention(Duration statisticsRetention) {
		this.statisticsRetention = statisticsRetention;
	}

}
