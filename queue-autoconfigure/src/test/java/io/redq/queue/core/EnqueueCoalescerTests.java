package io.redq.queue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link EnqueueCoalescer}, with script calls the test completes itself.
 *
 * @author Redq team
 */
class EnqueueCoalescerTests {

	private final List<Call> calls = new CopyOnWriteArrayList<>();

	private final List<Thread> callers = new ArrayList<>();

	private final EnqueueCoalescer coalescer = new EnqueueCoalescer(this::call, Duration.ofSeconds(10));

	@AfterEach
	void stopCallers() throws InterruptedException {
		for (Thread caller : this.callers) {
			caller.interrupt();
			caller.join();
		}
	}

	@Test
	void enqueuesThatArriveWhileTwoCallsAreOnTheirWayGoTogetherInTheNextCall() {
		CompletableFuture<List<Object>> a = enqueue("a");
		awaitCalls(1);
		CompletableFuture<List<Object>> b = enqueue("b");
		awaitCalls(2);
		CompletableFuture<List<Object>> c = enqueueAndWait("c");
		CompletableFuture<List<Object>> d = enqueueAndWait("d");
		CompletableFuture<List<Object>> e = enqueueAndWait("e");
		assertThat(this.calls).hasSize(2);
		this.calls.get(0).complete(1L);
		awaitCalls(3);
		assertThat(this.calls.get(2).ids()).containsExactly("c", "d", "e");
		this.calls.get(2).complete(1L, 0L, 2L);
		this.calls.get(1).complete(3L);
		assertThat(a.join()).containsExactly(1L);
		assertThat(b.join()).containsExactly(3L);
		assertThat(c.join()).containsExactly(1L);
		assertThat(d.join()).containsExactly(0L);
		assertThat(e.join()).containsExactly(2L);
		assertThat(this.calls).hasSize(3);
	}

	@Test
	void aFailedCallFailsEveryEnqueueInItAndTheNextOnesStillGoOut() {
		CompletableFuture<List<Object>> a = enqueue("a");
		awaitCalls(1);
		CompletableFuture<List<Object>> b = enqueue("b");
		awaitCalls(2);
		CompletableFuture<List<Object>> c = enqueueAndWait("c");
		RedisConnectionFailureException failure = new RedisConnectionFailureException("Redis is away");
		this.calls.get(0).fail(failure);
		this.calls.get(1).fail(failure);
		assertThat(a).failsWithin(Duration.ofSeconds(5)).withThrowableThat().havingCause().isSameAs(failure);
		assertThat(b).failsWithin(Duration.ofSeconds(5)).withThrowableThat().havingCause().isSameAs(failure);
		awaitCalls(3);
		this.calls.get(2).complete(1L);
		assertThat(c.join()).containsExactly(1L);
	}

	@Test
	void aCallCarriesAtMostAThousandJobsUnlessOneEnqueueHasMore() {
		enqueue("a");
		awaitCalls(1);
		enqueue("b");
		awaitCalls(2);
		enqueueAndWait(ids("c", 600));
		enqueueAndWait(ids("d", 600));
		enqueueAndWait(ids("e", 1500));
		this.calls.get(0).complete(1L);
		awaitCalls(3);
		this.calls.get(1).complete(1L);
		awaitCalls(4);
		this.calls.get(2).completeEach(1L);
		awaitCalls(5);
		assertThat(this.calls.stream().map((call) -> call.ids().size())).containsExactly(1, 1, 600, 600, 1500);
	}

	@Test
	void aCallerGivesUpWhenRedisDoesNotAnswerInTime() {
		EnqueueCoalescer impatient = new EnqueueCoalescer(this::call, Duration.ofMillis(100));
		assertThatExceptionOfType(QueryTimeoutException.class)
			.isThrownBy(() -> impatient.enqueue(List.of(command("a"))))
			.withMessageContaining("within PT0.1S");
	}

	@SuppressWarnings("rawtypes")
	private Mono<List> call(List<String> args) {
		Call call = new Call(args, new CompletableFuture<>());
		this.calls.add(call);
		return Mono.fromFuture(call.result());
	}

	private void awaitCalls(int count) {
		await().atMost(Duration.ofSeconds(5)).until(() -> this.calls.size() >= count);
	}

	private CompletableFuture<List<Object>> enqueue(String... ids) {
		CompletableFuture<List<Object>> statuses = new CompletableFuture<>();
		List<EnqueueCommand> commands = List.of(ids).stream().map(EnqueueCoalescerTests::command).toList();
		Thread caller = new Thread(() -> {
			try {
				statuses.complete(new ArrayList<>(this.coalescer.enqueue(commands)));
			}
			catch (RuntimeException ex) {
				statuses.completeExceptionally(ex);
			}
		});
		this.callers.add(caller);
		caller.start();
		return statuses;
	}

	// enqueues from a thread of its own and returns once that thread waits for its
	// statuses, so that enqueues join the line in the order of the calls
	private CompletableFuture<List<Object>> enqueueAndWait(String... ids) {
		CompletableFuture<List<Object>> statuses = enqueue(ids);
		Thread caller = this.callers.get(this.callers.size() - 1);
		await().atMost(Duration.ofSeconds(5)).until(() -> caller.getState() == Thread.State.TIMED_WAITING);
		return statuses;
	}

	private static String[] ids(String prefix, int count) {
		return IntStream.range(0, count).mapToObj((i) -> prefix + i).toArray(String[]::new);
	}

	private static EnqueueCommand command(String id) {
		return EnqueueCommand.withGeneratedId(id, EnqueueCommand.Due.NOW, "\"payload\":null}");
	}

	@SuppressWarnings("rawtypes")
	private record Call(List<String> args, CompletableFuture<List> result) {

		// ARGV: the count, then five arguments per job, the id first
		List<String> ids() {
			return IntStream.range(0, Integer.parseInt(this.args.get(0)))
				.mapToObj((i) -> this.args.get(1 + i * 5))
				.toList();
		}

		void complete(Long... statuses) {
			this.result.complete(List.of(statuses));
		}

		void completeEach(long status) {
			this.result.complete(Collections.nCopies(ids().size(), status));
		}

		void fail(Throwable failure) {
			this.result.completeExceptionally(failure);
		}

	}

}
