package io.redq.queue.dashboard;

import java.util.List;

import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.QueueNames;
import io.redq.queue.inspect.ChainPage;
import io.redq.queue.inspect.ChainView;
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
 * The dashboard's view of the chains: the list, newest first, in pages; one chain with
 * its state, reason and steps; and its cancellation (no later step starts, its current
 * step is cancelled in its queue unless it is running, and then finishes).
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
@RequestMapping("${redq.dashboard.path:/redq}/api/chains")
public class ChainsController {

	private final JobQueueInspector inspector;

	private final DashboardGuard guard;

	/**
	 * Create an instance.
	 * @param inspector the inspector the dashboard reads and changes the chains through
	 * @param guard what the dashboard's views check, and the log of their changes
	 */
	public ChainsController(JobQueueInspector inspector, DashboardGuard guard) {
		this.inspector = inspector;
		this.guard = guard;
	}

	@GetMapping("")
	ChainPageJson chains(@RequestParam(defaultValue = "0") int offset, @RequestParam(defaultValue = "20") int count) {
		ChainPage page = this.inspector.read(() -> this.inspector.chains(offset, count));
		return new ChainPageJson(page.total(), page.offset(), page.chains().stream().map(ChainJson::of).toList());
	}

	@GetMapping("/{id}")
	ChainDetailJson chain(@PathVariable String id) {
		String chainId = requireChainId(id);
		ChainView chain = this.inspector.read(() -> this.inspector.chain(chainId));
		if (chain == null) {
			throw notFound(chainId);
		}
		return new ChainDetailJson(ChainJson.of(chain), chain.status().steps());
	}

	@PostMapping("/{id}/cancel")
	DashboardJson.ChangeJson cancel(@PathVariable String id, HttpServletRequest request) {
		this.guard.requireChangeAllowed(request);
		String chainId = requireChainId(id);
		if (this.inspector.read(() -> this.inspector.chain(chainId)) == null) {
			throw notFound(chainId);
		}
		boolean cancelled;
		try {
			// each call ends within the dispatcher's timeout, as the other changes' do
			cancelled = this.inspector.getChainOperations().cancel(chainId, this.inspector.getChangeTimeout());
		}
		catch (QueryTimeoutException ex) {
			throw DashboardErrors.cancelTimedOut("chain", ex);
		}
		this.guard.log(request, "cancel", "chain", chainId, cancelled ? 1 : 0);
		return new DashboardJson.ChangeJson("cancel", cancelled ? 1 : 0, false, null);
	}

	private static String requireChainId(String id) {
		try {
			return QueueNames.validateId(id);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Invalid chain id: " + ex.getMessage());
		}
	}

	private static DashboardGuard.NotFoundException notFound(String chainId) {
		return new DashboardGuard.NotFoundException(
				"No chain '" + chainId + "': Redis keeps none by that id (an ended chain expires after its linger)");
	}

	/**
	 * A chain as the list shows it: its steps counted, its creation time in epoch
	 * milliseconds.
	 */
	record ChainJson(String id, ChainStatus.State state, @Nullable String reason, int steps, long succeeded,
			@Nullable Long createdAt) {

		static ChainJson of(ChainView view) {
			ChainStatus status = view.status();
			long succeeded = status.steps()
				.stream()
				.filter((step) -> step.state() == ChainStatus.StepState.SUCCEEDED)
				.count();
			return new ChainJson(status.id(), status.state(), status.reason(), status.steps().size(), succeeded,
					millis(view.createdAt()));
		}

	}

	/**
	 * A page of chains, newest first.
	 */
	record ChainPageJson(long total, int offset, List<ChainJson> chains) {
	}

	/**
	 * A chain and its steps, in the order they run.
	 */
	record ChainDetailJson(ChainJson chain, List<ChainStatus.Step> steps) {
	}

}
