package io.redq.queue.redis;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ShardTurns}.
 *
 * @author Redq team
 */
class ShardTurnsTests {

	private static final List<String> SHARDS = List.of("q", "q{1}", "q{2}");

	private final AtomicLong now = new AtomicLong(-5);

	private final ShardTurns turns = new ShardTurns(this.now::get);

	@Test
	void eachReservationStartsAtTheNextShard() {
		assertThat(this.turns.order(SHARDS, List.of())).containsExactly("q", "q{1}", "q{2}");
		assertThat(this.turns.order(SHARDS, List.of())).containsExactly("q{1}", "q{2}", "q");
		assertThat(this.turns.order(SHARDS, List.of())).containsExactly("q{2}", "q", "q{1}");
		assertThat(this.turns.order(SHARDS, List.of())).containsExactly("q", "q{1}", "q{2}");
	}

	@Test
	void aShardFoundWithoutWorkIsTriedLastUntilItsTimePasses() {
		this.turns.found("q{1}", 10, 3);
		assertThat(this.turns.order(SHARDS, List.of())).containsExactly("q", "q{2}", "q{1}");
		assertThat(this.turns.order(SHARDS, List.of())).containsExactly("q{2}", "q", "q{1}");
		this.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ShardTurns.EMPTY_MILLIS) - 1);
		assertThat(this.turns.order(SHARDS, List.of())).containsExactly("q{2}", "q", "q{1}");
		this.now.incrementAndGet();
		assertThat(this.turns.order(SHARDS, List.of())).containsExactly("q", "q{1}", "q{2}");
	}

	@Test
	void aShardThatGaveAFullBatchTakesItsTurnsAgain() {
		this.turns.found("q", 10, 0);
		this.turns.found("q", 10, 10);
		assertThat(this.turns.order(SHARDS, List.of())).containsExactly("q", "q{1}", "q{2}");
	}

	@Test
	void aShardThatWokeAnIdleWaitComesFirstEvenWhenFoundWithoutWorkBefore() {
		this.turns.found("q{2}", 10, 0);
		assertThat(this.turns.order(SHARDS, List.of("q{2}"))).containsExactly("q{2}", "q", "q{1}");
		assertThat(this.turns.order(SHARDS, List.of())).containsExactly("q{1}", "q{2}", "q");
	}

}
