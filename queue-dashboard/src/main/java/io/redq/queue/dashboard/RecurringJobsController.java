package io.redq.queue.dashboard;

import java.util.List;

import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.RecurringJobView;
import io.redq.queue.recurring.RecurringJobInfo;
import io.redq.queue.recurring.RecurringJobs;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import static io.redq.queue.dashboard.DashboardJson.millis;

/**
 * The dashboard's view of the recurring jobs: their schedules and ticks, and the changes
 * an operator makes to one (pause, resume, trigger).
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
@RequestMapping("${redq.dashboard.path:/redq}/api/recurring")
public class RecurringJobsController {

	private final JobQueueInspector inspector;

	private final DashboardGuard guard;

	/**
	 * Create an instance.
	 * @param inspector the inspector the dashboard reads the recurring jobs through
	 * @param guard what the dashboard's views check, and the log of their changes
	 */
	public RecurringJobsController(JobQueueInspector inspector, DashboardGuard guard) {
		this.inspector = inspector;
		this.guard = guard;
	}

	@GetMapping("")
	List<RecurringJson> recurringJobs() {
		return this.inspector.read(() -> this.inspector.recurringJobs().stream().map(RecurringJson::of).toList());
	}

	@PostMapping("/{name}/{action}")
	DashboardJson.ChangeJson changeRecurringJob(@PathVariable String name, @PathVariable String action,
			HttpServletRequest request) {
		this.guard.requireChangeAllowed(request);
		RecurringJobs recurring = this.inspector.getRecurringJobs();
		if (recurring == null || recurring.list().stream().noneMatch((job) -> job.name().equals(name))) {
			throw new DashboardGuard.NotFoundException("No recurring job '" + name + "' in this application");
		}
		boolean changed = switch (action) {
			case "pause" -> recurring.pause(name);
			case "resume" -> recurring.resume(name);
			case "trigger" -> recurring.trigger(name) != null;
			default ->
				throw new IllegalArgumentException("Unknown action '" + action + "': use pause, resume or trigger");
		};
		this.guard.log(request, action, "recurring job", name, changed ? 1 : 0);
		return new DashboardJson.ChangeJson(action, changed ? 1 : 0, false, null);
	}

	/**
	 * A recurring job as the page shows it; times in epoch milliseconds.
	 */
	record RecurringJson(String name, String queue, String schedule, @Nullable Long nextTick, @Nullable Long lastTick,
			boolean paused) {

		static RecurringJson of(RecurringJobView view) {
			RecurringJobInfo info = view.info();
			return new RecurringJson(info.name(), info.queue(), info.schedule().toString(), millis(info.nextTick()),
					millis(view.lastTick()), info.paused());
		}

	}

}
