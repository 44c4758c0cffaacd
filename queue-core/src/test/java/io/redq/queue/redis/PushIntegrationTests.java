package io.redq.queue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.DispatchResult.Outcome;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobIds;
import io.redq.queue.core.JobPriority;
import io.redq.queue.script.QueueScripts;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Tests that jobs ready at once under generated ids, at the default level and in no
 * group, are enqueued by {@code push.lua} as {@code enqueue.lua} would enqueue them,
 * alone or in batches, and that a batch with any other job is left to
 * {@code enqueue.lua}, against a real Redis.
 *
 * @author Redq team
 */
class PushIntegrationTests extends AbstractQueueIntegrationTests {

	private QueueScripts scripts;

	@BeforeEach
	void forgetScripts() {
		this.scripts = this.operations.getStore().getScripts();
		this.redis.command("SCRIPT", "FLUSH");
	}

	@Test
	void aSingleJobReadyAtOnceUnderAGeneratedIdIsPushedAndStoredAsEnqueueStoresIt() {
		String pushed = JobIds.next();
		assertThat(this.enqueuer.enqueue(QUEUE, List.of(EnqueueCommand.withGeneratedId(pushed, Due.NOW, body(1)))))
			.extracting(DispatchResult::outcome)
			.containsExactly(Outcome.CREATED);
		assertThat(loaded(this.scripts.push())).isTrue();
		assertThat(loaded(this.scripts.enqueue())).isFalse();
		assertThat(this.template.opsForZSet().zCard(this.keys.wake())).as("a waiting listener is woken").isOne();
		String batched = JobIds.next();
		this.enqueuer.enqueue(QUEUE, List.of(EnqueueCommand.withGeneratedId(batched, Due.NOW, body(1)),
				EnqueueCommand.withGeneratedId(JobIds.next(), Due.after(Duration.ofHours(1)), body(2))));
		assertThat(loaded(this.scripts.enqueue())).as("a batch with a delayed job").isTrue();
		assertThat(withoutTimes(envelope(pushed))).isEqualTo(withoutTimes(envelope(batched)));
		assertThat(envelope(pushed)).matches("\\{\"createdAt\":(\\d+),\"availableAt\":\\1,\"job\":.*");
		assertThat(this.template.opsForList().range(this.keys.ready(), 0, -1)).containsExactly(pushed, batched);
	}

	@Test
	void aBatchOfJobsReadyAtOnceUnderGeneratedIdsIsPushedInOrderAsEnqueueStoresThem() {
		List<EnqueueCommand> batch = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			batch.add(EnqueueCommand.withGeneratedId(JobIds.next(), Due.NOW, body(i)));
		}
		assertThat(this.enqueuer.enqueue(QUEUE, batch)).extracting(DispatchResult::id, DispatchResult::outcome)
			.containsExactlyElementsOf(batch.stream().map((job) -> tuple(job.id(), Outcome.CREATED)).toList());
		assertThat(loaded(this.scripts.push())).isTrue();
		assertThat(loaded(this.scripts.enqueue())).isFalse();
		String enqueued = JobIds.next();
		enqueueAlone(EnqueueCommand.withGeneratedId(enqueued, Due.after(Duration.ofMillis(1)), body(0)));
		assertThat(this.template.opsForList().range(this.keys.ready(), 0, -1))
			.containsExactlyElementsOf(batch.stream().map(EnqueueCommand::id).toList());
		assertThat(withoutTimes(envelope(batch.get(0).id()))).isEqualTo(withoutTimes(envelope(enqueued)));
		assertThat(envelope(batch.get(2).id())).endsWith("\"payload\":2}");
	}

	@Test
	void anEmptyCallIsLeftToTheEnqueueScriptAndStoresNothing() {
		assertThat(this.enqueuer.enqueueOnce(QUEUE, ResendProtection.newId(), List.of(), Duration.ofMinutes(1)))
			.isEmpty();
		assertThat(loaded(this.scripts.push())).isFalse();
		assertThat(this.template.hasKey(this.keys.jobs())).isFalse();
	}

	@Test
	void everyOtherSingleJobIsEnqueuedByTheEnqueueScript() {
		String body = body(1);
		enqueueAlone(EnqueueCommand.withGeneratedId(JobIds.next(), Due.after(Duration.ofMillis(1)), body));
		enqueueAlone(EnqueueCommand.withGeneratedId(JobIds.next(), Due.at(Instant.now()), body));
		enqueueAlone(new EnqueueCommand("chosen", Due.NOW, DuplicatePolicy.KEEP, body));
		enqueueAlone(EnqueueCommand.withGeneratedId(JobIds.next(), Due.NOW, GroupsIntegrationTests.body(9, null)));
		enqueueAlone(EnqueueCommand.withGeneratedId(JobIds.next(), Due.NOW,
				GroupsIntegrationTests.body(JobPriority.DEFAULT, "tenant")));
		assertThat(loaded(this.scripts.push())).isFalse();
		assertThat(this.operations.stats(QUEUE).ready() + this.operations.stats(QUEUE).delayed()).isEqualTo(5);
	}

	private void enqueueAlone(EnqueueCommand command) {
		assertThat(this.enqueuer.enqueue(QUEUE, List.of(command))).extracting(DispatchResult::outcome)
			.containsExactly(Outcome.CREATED);
	}

	private boolean loaded(RedisScript<?> script) {
		return this.template
			.execute((RedisCallback<List<Boolean>>) (connection) -> connection.scriptingCommands()
				.scriptExists(script.getSha1()))
			.get(0);
	}

	private String envelope(String id) {
		return (String) this.template.opsForHash().get(this.keys.jobs(), id);
	}

	private static String withoutTimes(String envelope) {
		return envelope.replaceAll("\\d{13}", "T");
	}

	private static String body(int payload) {
		return "\"job\":\"test\",\"maxAttempts\":1,\"timeout\":0,\"payload\":" + payload + "}";
	}

}
