package io.redq.queue.redis.tester;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.redq.queue.core.Due;
import io.redq.queue.redis.BatchOperations;
import io.redq.queue.redis.ChainCommand;
import io.redq.queue.redis.ChainOperations;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.PreparedCommand;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ResendProtection;

/**
 * Drives {@code chain.lua} with the queue scripts through the steps of the
 * {@link WorkflowScriptTester} and its own: chains created (as an outbox relay creates
 * them, perhaps again) and cancelled. After every step it checks that no step started
 * before the step before it succeeded, nor once its chain ended, that no step came back
 * once it finished (unless revived), that the on-failure job was enqueued at most once
 * and only after a step died, and that a chain ended as its steps' first finishes call
 * for; at the end, once everything ran, that every chain ended and its on-failure job was
 * enqueued exactly once when it failed.
 *
 * @author Redq team
 */
final class ChainScriptTester extends WorkflowScriptTester {

	static final List<String> QUEUES = List.of("steps-0", "steps-1");

	private final ChainOperations chains;

	ChainScriptTester(RedisJobQueueOperations operations, ChainOperations chains, BatchOperations handOvers, int steps,
			Set<Fault> faults, long seed) {
		super(operations, handOvers, chains, QUEUES, steps, faults, seed);
		this.chains = chains;
	}

	@Override
	boolean nextStep() {
		int choice = this.random.nextInt(100);
		if (choice < 8) {
			return create();
		}
		if (choice < 11) {
			return createAgain();
		}
		if (choice < 33) {
			return reserve(anyQueue());
		}
		if (choice < 39) {
			return reserve(CALLBACKS);
		}
		if (choice < 59) {
			return ack();
		}
		if (choice < 69) {
			return fail();
		}
		if (choice < 72) {
			return revive();
		}
		if (choice < 75) {
			return cancel();
		}
		if (choice < 81) {
			migrate(anyQueue());
			return true;
		}
		return handOver(anyQueue());
	}

	// producers

	private boolean create() {
		String id = "c" + (this.workflows.size() + 1);
		List<PreparedCommand> steps = new ArrayList<>();
		for (int i = 1, count = 2 + this.random.nextInt(3); i <= count; i++) {
			int maxAttempts = 1 + this.random.nextInt(2);
			steps.add(new PreparedCommand(anyQueue(), EnqueueCommand.withGeneratedId(id + ":" + i, Due.NOW,
					"\"job\":\"step\",\"maxAttempts\":" + maxAttempts + ",\"payload\":\"" + id + "\"}")));
		}
		ChainCommand command = new ChainCommand(id, Duration.ofMinutes(10), steps, callback(id, "failure"));
		String callId = ResendProtection.newId();
		Chain chain = new Chain(id, steps.stream().map(Member::new).toList(),
				() -> this.chains.createOnce(command, callId, WINDOW));
		this.chains.createOnce(command, callId, WINDOW);
		String again = created(chain);
		trace("a relay creates " + id + " of " + steps.stream().map((s) -> s.command().id() + "@" + s.queue()).toList()
				+ again);
		return true;
	}

}
