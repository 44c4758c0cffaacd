package io.redq.queue.dashboard;

import java.util.Map;

import io.redq.queue.inspect.JobQueueInspector;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.ServletServerHttpRequest;
import org.springframework.web.util.WebUtils;

/**
 * What every view of the dashboard checks before it reads or changes anything, in one
 * place: that a change is allowed ({@code redq.dashboard.read-only} and
 * {@code management.endpoints.access.max-permitted}) and comes from the dashboard's page
 * (the {@value #CHANGE_HEADER} header and an {@code Origin} of this server), that a queue
 * exists, whether payloads are shown; and the log every change is written to.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class DashboardGuard {

	/**
	 * The header every change must carry: a form cannot send it, and a script of another
	 * site can only after a CORS preflight, which the dashboard never allows.
	 */
	public static final String CHANGE_HEADER = "X-Redq-Dashboard";

	private final JobQueueInspector inspector;

	private final ActionLog actions;

	private final DashboardProperties properties;

	private final @Nullable String readOnlyBecause;

	/**
	 * Create an instance.
	 * @param inspector the inspector whose queues the dashboard shows
	 * @param actions the log of the changes made through the dashboard
	 * @param properties the dashboard's configuration
	 * @param changesPermitted whether {@code management.endpoints.access.max-permitted}
	 * allows changes: when not, the dashboard is read-only whatever its configuration
	 * says
	 */
	public DashboardGuard(JobQueueInspector inspector, ActionLog actions, DashboardProperties properties,
			boolean changesPermitted) {
		this.inspector = inspector;
		this.actions = actions;
		this.properties = properties;
		this.readOnlyBecause = !changesPermitted
				? "management.endpoints.access.max-permitted allows no changes through any endpoint, the dashboard's "
						+ "included"
				: properties.isReadOnly() ? "set redq.dashboard.read-only=false to allow changes" : null;
	}

	boolean isReadOnly() {
		return this.readOnlyBecause != null;
	}

	ActionLog getActions() {
		return this.actions;
	}

	void requireChangeAllowed(HttpServletRequest request) {
		if (this.readOnlyBecause != null) {
			throw new ReadOnlyException(this.readOnlyBecause);
		}
		String origin = request.getHeader(HttpHeaders.ORIGIN);
		if (request.getHeader(CHANGE_HEADER) == null || origin == null
				|| !WebUtils.isSameOrigin(new ServletServerHttpRequest(request))) {
			throw new CrossSiteRequestException(origin, request);
		}
	}

	void log(HttpServletRequest request, String action, String queue, String target, long jobs) {
		this.actions.record((request.getUserPrincipal() != null) ? request.getUserPrincipal().getName() : null, action,
				queue, target, jobs);
	}

	String requireQueue(String queue) {
		if (!this.inspector.exists(queue)) {
			throw new NotFoundException(
					"No queue '" + queue + "': no job of this application uses it and Redis holds none by that name");
		}
		return queue;
	}

	boolean showsPayloads(HttpServletRequest request) {
		return switch (this.properties.getShowPayloads()) {
			case ALWAYS -> true;
			case NEVER -> false;
			case WHEN_AUTHORIZED -> request.getUserPrincipal() != null && (this.properties.getPayloadRoles().isEmpty()
					|| this.properties.getPayloadRoles().stream().anyMatch(request::isUserInRole));
		};
	}

	static void requireConfirmation(String queue, @Nullable String confirm, String action) {
		if (!queue.equals(confirm)) {
			throw new IllegalArgumentException(
					"To " + action + " queue '" + queue + "', confirm with the queue name: confirm=" + queue);
		}
	}

	static ResponseEntity<Map<String, String>> error(HttpStatus status, @Nullable String message) {
		return ResponseEntity.status(status).body(Map.of("error", (message != null) ? message : status.name()));
	}

	/**
	 * What a request names is not there: a queue, a recurring job, a batch.
	 */
	static final class NotFoundException extends RuntimeException {

		NotFoundException(String message) {
			super(message);
		}

	}

	static final class ReadOnlyException extends RuntimeException {

		ReadOnlyException(String because) {
			super("The dashboard is read-only: " + because);
		}

	}

	static final class CrossSiteRequestException extends RuntimeException {

		CrossSiteRequestException(@Nullable String origin, HttpServletRequest request) {
			super("Refused a change that did not come from the dashboard's page (Origin: " + origin + "): a change "
					+ "needs the header " + CHANGE_HEADER + " and the Origin of this server, " + request.getScheme()
					+ "://" + request.getServerName() + ":" + request.getServerPort() + ", which a form or script of "
					+ "another site cannot send. Behind a proxy that changes the host or the scheme, let the "
					+ "application see the address the browser used (server.forward-headers-strategy)");
		}

	}

}
