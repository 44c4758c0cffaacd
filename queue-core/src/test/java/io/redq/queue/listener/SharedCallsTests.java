package io.redq.queue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link SharedCalls}.
 *
 * @author Redq team
 */
class SharedCallsTests {

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final List<List<Integer>> calls = new CopyOnWriteArrayList<>();

	private final CountDownLatch firstCallMayReturn = new CountDownLatch(1);

	@AfterEach
	void stop() {
		this.executor.shutdownNow();
	}

	@Test
	void requestsThatComeWhileACallIsInFlightShareTheNextCallAndGetTheirOwnAnswers() throws Exception {
		SharedCalls<Integer> shared = new SharedCalls<>((requests) -> {
			this.calls.add(requests);
			awaitFirstCallMayReturn();
			return requests.stream().map((request) -> request % 2 == 0).toList();
		});
		Future<Boolean> first = this.executor.submit(() -> shared.send(0));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.calls.size() == 1);
		List<Future<Boolean>> others = new ArrayList<>();
		List<Thread> waiting = new CopyOnWriteArrayList<>();
		for (int i = 1; i <= 7; i++) {
			int request = i;
			others.add(this.executor.submit(() -> {
				waiting.add(Thread.currentThread());
				return shared.send(request);
			}));
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> waiting.size() == 7
					&& waiting.stream().allMatch((thread) -> thread.getState() == Thread.State.WAITING));
		this.firstCallMayReturn.countDown();
		assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
		for (int i = 1; i <= 7; i++) {
			assertThat(others.get(i - 1).get(10, TimeUnit.SECONDS)).isEqualTo(i % 2 == 0);
		}
		assertThat(this.calls).hasSize(2);
		assertThat(this.calls.get(1)).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7);
	}

	@Test
	void aFailedCallFailsEveryRequestItCarriedAndTheNextCallIsSentAfresh() throws Exception {
		SharedCalls<Integer> shared = new SharedCalls<>((requests) -> {
			this.calls.add(requests);
			if (this.calls.size() == 1) {
				throw new IllegalStateException("Redis is down");
			}
			return requests.stream().map((request) -> true).toList();
		});
		assertThatIllegalStateException().isThrownBy(() -> shared.send(1)).withMessage("Redis is down");
		assertThat(shared.send(2)).isTrue();
		assertThat(this.calls).containsExactly(List.of(1), List.of(2));
	}

	private void awaitFirstCallMayReturn() {
		try {
			assertThat(this.firstCallMayReturn.await(10, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
