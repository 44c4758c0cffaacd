package io.redq.queue.dashboard;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

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
	 * Whether to serve the dashboard, on the application's port (server.port, not
	 * management.server.port). Off by default: it shows job payloads and errors, so turn
	 * it on deliberately and restrict its path (see the docs' security section).
	 */
	private boolean enabled;

	/**
	 * The path the dashboard is served under, starting with '/'.
	 */
	private String path = "/redq";

	/**
	 * Whether the dashboard only shows the queues. When false it also retries, deletes,
	 * triggers, cancels and reschedules jobs, pauses and resumes queues and purges them,
	 * unless management.endpoints.access.max-permitted is read-only or none.
	 */
	private boolean readOnly = true;

	/**
	 * How long the per-hour statistics of the application's queues are kept in Redis, in
	 * whole hours: from 1 hour to 30 days. Each queue keeps 60 per-minute buckets and one
	 * per hour.
	 */
	private Duration statisticsRetention = Duration.ofDays(7);

	/**
	 * When to show the payloads and headers of jobs; otherwise each is shown as "******".
	 */
	private Show showPayloads = Show.ALWAYS;

	/**
	 * Roles that see the payloads and headers of jobs when show-payloads is
	 * when-authorized; when empty, every authenticated user does.
	 */
	private Set<String> payloadRoles = new LinkedHashSet<>();

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

	public Show getShowPayloads() {
		return this.showPayloads;
	}

	public void setShowPayloads(Show showPayloads) {
		this.showPayloads = showPayloads;
	}

	public Set<String> getPayloadRoles() {
		return this.payloadRoles;
	}

	public void setPayloadRoles(Set<String> payloadRoles) {
		this.payloadRoles = payloadRoles;
	}

	/**
	 * When the dashboard shows what jobs carry, as Spring Boot shows the values of the
	 * {@code env} endpoint.
	 */
	public enum Show {

		/** Never: each payload and header is shown as {@code ******}. */
		NEVER,

		/** To users with one of the payload roles (any authenticated user when none). */
		WHEN_AUTHORIZED,

		/** Always. */
		ALWAYS

	}

}
