package io.redq.queue.dashboard;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.inspect.JobQueueInspector;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's page, below {@code redq.dashboard.path}, the session it starts with and
 * the log of the changes made through it. Each of its views has a controller of its own
 * ({@link QueuesController}, {@link JobsController}, {@link BatchesController},
 * {@link RecurringJobsController}, {@link InstancesController},
 * {@link ParkedRowsController}): thin adapters over the {@link JobQueueInspector}. Reads
 * are {@code GET}s, each answered within the inspector's read timeout as a whole. Every
 * change is a {@code POST} (refused while the dashboard is read-only), so that no link or
 * image can change anything, and so that Spring Security's CSRF protection covers each of
 * them; and, whatever the security setup, a change needs what a form or script of another
 * site cannot send (see {@link DashboardGuard}).
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
@RequestMapping("${redq.dashboard.path:/redq}")
public class DashboardController {

	private static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
			+ "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

	private static final boolean SECURITY_PRESENT = ClassUtils
		.isPresent("org.springframework.security.web.csrf.CsrfToken", DashboardController.class.getClassLoader());

	private final JobQueueInspector inspector;

	private final DashboardGuard guard;

	/**
	 * Create an instance.
	 * @param inspector the inspector the dashboard reads the queues through
	 * @param guard what the dashboard's views check, and the log of their changes
	 */
	public DashboardController(JobQueueInspector inspector, DashboardGuard guard) {
		this.inspector = inspector;
		this.guard = guard;
	}

	@GetMapping("")
	ResponseEntity<Void> redirectToPage(HttpServletRequest request) {
		// the page's relative links need the trailing slash
		return ResponseEntity.status(HttpStatus.FOUND)
			.header(HttpHeaders.LOCATION, request.getRequestURI() + "/")
			.build();
	}

	@GetMapping("/")
	ResponseEntity<Resource> page() {
		return ResponseEntity.ok()
			.contentType(MediaType.TEXT_HTML)
			.header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
			.header("X-Content-Type-Options", "nosniff")
			.header(HttpHeaders.CACHE_CONTROL, "no-store")
			.body(new ClassPathResource("META-INF/redq-dashboard/index.html"));
	}

	@GetMapping("/api/session")
	Map<String, @Nullable Object> session(HttpServletRequest request) {
		Map<String, @Nullable Object> session = new LinkedHashMap<>();
		session.put("readOnly", this.guard.isReadOnly());
		session.put("maxPageSize", JobQueueInspector.MAX_PAGE_SIZE);
		session.put("csrf", SECURITY_PRESENT ? Csrf.of(request) : null);
		return session;
	}

	@GetMapping("/api/actions")
	List<Map<String, Object>> actions(@RequestParam(defaultValue = "100") int count) {
		if (count < 1 || count > ActionLog.MAX_ENTRIES) {
			throw new IllegalArgumentException("count must be between 1 and " + ActionLog.MAX_ENTRIES);
		}
		return this.inspector.read(() -> this.guard.getActions().latest(count));
	}

	/**
	 * The CSRF token the page sends with each change, when Spring Security made one.
	 */
	record Csrf(String header, String parameter, String token) {

		static @Nullable Csrf of(HttpServletRequest request) {
			Object token = request.getAttribute(org.springframework.security.web.csrf.CsrfToken.class.getName());
			if (token instanceof org.springframework.security.web.csrf.CsrfToken csrf) {
				return new Csrf(csrf.getHeaderName(), csrf.getParameterName(), csrf.getToken());
			}
			return null;
		}

	}

}
