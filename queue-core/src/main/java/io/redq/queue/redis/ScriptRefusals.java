package io.redq.queue.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.springframework.core.NestedExceptionUtils;

/**
 * The replies with which Redis refuses a script call before running it, while a master
 * fails over or a Cluster's slots move: the call changed nothing, so sending it again,
 * after a short pause, is safe for every script, whether it carries a call id or not.
 * Lettuce already follows a few {@code MOVED} and {@code ASK} redirections by itself;
 * these are what is left over, and a {@code CLUSTERDOWN} that every node answers from the
 * moment it marks a master failed until a replica takes over.
 * <p>
 * A call is sent again at most {@value #RETRIES} times, after 20 ms, doubling up to 1 s:
 * about 3 s in all, within the 5 s a dispatch waits by default
 * ({@code redq.dispatcher.timeout}). A timeout or any other failure is not retried here:
 * Redis may have run the call, and Lettuce re-sends it by itself after a reconnect.
 *
 * @author Redq team
 */
final class ScriptRefusals {

	static final int RETRIES = 8;

	private static final Duration FIRST_DELAY = Duration.ofMillis(20);

	private static final Duration MAX_DELAY = Duration.ofSeconds(1);

	/**
	 * Error prefixes that Redis answers before running a script: the cluster cannot serve
	 * the slot now ({@code CLUSTERDOWN}, {@code TRYAGAIN}), the slot moved further than
	 * Lettuce followed ({@code MOVED}, {@code ASK}), the node is a replica now
	 * ({@code READONLY}, {@code MASTERDOWN}) or still loading its data ({@code LOADING}).
	 */
	private static final List<String> REFUSALS = List.of("CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK", "READONLY",
			"MASTERDOWN", "LOADING");

	private ScriptRefusals() {
	}

	/**
	 * Whether a call's failure is a refusal that changed nothing.
	 * @param failure the failure, as Lettuce or the template threw it
	 * @return {@code true} for a refusal worth sending the call again for
	 */
	static boolean isRefusal(Throwable failure) {
		String message = NestedExceptionUtils.getMostSpecificCause(failure).getMessage();
		if (message == null) {
			return false;
		}
		for (String refusal : REFUSALS) {
			if (message.startsWith(refusal + " ")) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Run a call, and again after a pause while Redis refuses it.
	 * @param <T> the result type
	 * @param call the call
	 * @return its result
	 */
	static <T> T retried(Supplier<T> call) {
		for (int retry = 0;; retry++) {
			try {
				return call.get();
			}
			catch (RuntimeException ex) {
				if (retry == RETRIES || !isRefusal(ex)) {
					throw ex;
				}
				try {
					Thread.sleep(delay(retry).toMillis());
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw ex;
				}
			}
		}
	}

	/**
	 * Send a call without blocking, and again after a pause while Redis refuses it.
	 * @param <T> the result type
	 * @param call sends the call
	 * @return its reply, or its failure as the last attempt failed
	 */
	static <T> CompletableFuture<T> retriedAsync(Supplier<CompletableFuture<T>> call) {
		return retriedAsync(call, 0);
	}

	private static <T> CompletableFuture<T> retriedAsync(Supplier<CompletableFuture<T>> call, int retry) {
		return call.get().exceptionallyCompose((ex) -> {
			if (retry == RETRIES || !isRefusal(ex)) {
				return CompletableFuture.failedFuture(ex);
			}
			return CompletableFuture.runAsync(() -> {
			}, CompletableFuture.delayedExecutor(delay(retry).toMillis(), TimeUnit.MILLISECONDS))
				.thenCompose((paused) -> retriedAsync(call, retry + 1));
		});
	}

	static Duration delay(int retry) {
		Duration delay = FIRST_DELAY.multipliedBy(1L << retry);
		return (delay.compareTo(MAX_DELAY) < 0) ? delay : MAX_DELAY;
	}

}
