package io.redq.queue.dashboard;

import java.util.List;

import io.redq.queue.core.BatchMember;
import io.redq.queue.core.BatchStatus;
import io.redq.queue.core.QueueNames;
import io.redq.queue.inspect.BatchPage;
import io.redq.queue.inspect.BatchView;
import io.redq.queue.inspect.JobQueueInspector;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static io.redq.queue.dashboard.DashboardJson.millis;

/**
 * The dashboard's view of the batches: the list, newest first, in pages; one batch with
 * its state, death policy, counts and dead members in pages; and its cancellation (its
 * pending members are cancelled, running ones finish, its callbacks follow its policy).
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
@RequestMapping("${redq.dashboard.path:/redq}/api/batches")
public class BatchesController {

	private final JobQueueInspector inspector;

	private final DashboardGuard guard;

	/**
	 * Create an instance.
	 * @param inspector the inspector the dashboard reads and changes the batches through
	 * @param guard what the dashboard's views check, and the log of their changes
	 */
	public BatchesController(JobQueueInspector inspector, DashboardGuard guard) {
		this.inspector = inspector;
		this.guard = guard;
	}

	@GetMapping("")
	BatchPageJson batches(@RequestParam(defaultValue = "0") int offset, @RequestParam(defaultValue = "20") int count) {
		BatchPage page = this.inspector.read(() -> this.inspector.batches(offset, count));
		return new BatchPageJson(page.total(), page.offset(), page.batches().stream().map(BatchJson::of).toList());
	}

	@GetMapping("/{id}")
	BatchDetailJson batch(@PathVariable String id, @RequestParam(defaultValue = "0") int deadOffset,
			@RequestParam(defaultValue = "20") int deadCount) {
		String batchId = requireBatchId(id);
		return this.inspector.read(() -> {
			BatchView batch = this.inspector.batch(batchId);
			if (batch == null) {
				throw notFound(batchId);
			}
			return new BatchDetailJson(BatchJson.of(batch), deadOffset,
					this.inspector.deadBatchMembers(batchId, deadOffset, deadCount));
		});
	}

	@PostMapping("/{id}/cancel")
	DashboardJson.ChangeJson cancel(@PathVariable String id, HttpServletRequest request) {
		this.guard.requireChangeAllowed(request);
		String batchId = requireBatchId(id);
		if (this.inspector.read(() -> this.inspector.batch(batchId)) == null) {
			throw notFound(batchId);
		}
		boolean cancelled;
		try {
			// each call ends within the dispatcher's timeout, as the other changes' do
			cancelled = this.inspector.getBatchOperations()
				.getCancelOperations()
				.cancel(batchId, this.inspector.getChangeTimeout());
		}
		catch (QueryTimeoutException ex) {
			throw DashboardErrors.cancelTimedOut("batch", ex);
		}
		this.guard.log(request, "cancel", "batch", batchId, cancelled ? 1 : 0);
		return new DashboardJson.ChangeJson("cancel", cancelled ? 1 : 0, false, null);
	}

	private static String requireBatchId(String id) {
		try {
			return QueueNames.validateId(id);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Invalid batch id: " + ex.getMessage());
		}
	}

	private static DashboardGuard.NotFoundException notFound(String batchId) {
		return new DashboardGuard.NotFoundException(
				"No batch '" + batchId + "': Redis keeps none by that id (an ended batch expires after its linger)");
	}

	/**
	 * A batch as the page shows it; its creation time in epoch milliseconds.
	 */
	record BatchJson(String id, BatchStatus.State state, String deathPolicy, long total, long pending, long succeeded,
			long dead, long cancelled, @Nullable Long createdAt) {

		static BatchJson of(BatchView view) {
			BatchStatus status = view.status();
			return new BatchJson(status.id(), status.state(), status.deathPolicy().name(), status.total(),
					status.pending(), status.succeeded(), status.dead(), status.cancelled(), millis(view.createdAt()));
		}

	}

	/**
	 * A page of batches, newest first.
	 */
	record BatchPageJson(long total, int offset, List<BatchJson> batches) {
	}

	/**
	 * A batch and a page of its dead members.
	 */
	record BatchDetailJson(BatchJson batch, int deadOffset, List<BatchMember> deadMembers) {
	}

}
