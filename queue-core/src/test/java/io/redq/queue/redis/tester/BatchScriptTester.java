package io.redq.queue.redis.tester;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.Due;
import io.redq.queue.core.JobRequest;
import io.redq.queue.redis.BatchCommand;
import io.redq.queue.redis.BatchOperations;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.PreparedCommand;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ResendProtection;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Drives {@code batch.lua} with the queue scripts through the steps of the
 * {@link WorkflowScriptTester} and its own: batches created (as an outbox relay creates
 * them, perhaps again) and members added by a running member (by a process that may die
 * between the add and the enqueue). After every step it checks that each batch counts
 * each member once, as the member first finished, and that each callback was enqueued at
 * most once and only once its batch ended as it calls for; at the end, once every member
 * finished, that each callback its batch's outcome calls for was enqueued exactly once.
 *
 * @author Redq team
 */
final class BatchScriptTester extends WorkflowScriptTester {

	static final List<String> QUEUES = List.of("members-0", "members-1");

	/**
	 * The batch script, whose add the tester runs alone for a process that dies after it.
	 */
	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> ADD = script();

	private final BatchOperations batches;

	private final Map<String, Batch> batchOfMember = new HashMap<>();

	BatchScriptTester(RedisJobQueueOperations operations, BatchOperations batches, int steps, Set<Fault> faults,
			long seed) {
		super(operations, batches, batches.chains(), QUEUES, steps, faults, seed);
		this.batches = batches;
	}

	@Override
	boolean nextStep() {
		int choice = this.random.nextInt(100);
		if (choice < 10) {
			return create();
		}
		if (choice < 13) {
			return createAgain();
		}
		if (choice < 35) {
			return reserve(anyQueue());
		}
		if (choice < 42) {
			return reserve(CALLBACKS);
		}
		if (choice < 62) {
			return ack();
		}
		if (choice < 72) {
			return fail();
		}
		if (choice < 76) {
			return revive();
		}
		if (choice < 79) {
			return add();
		}
		if (choice < 84) {
			migrate(anyQueue());
			return true;
		}
		return handOver(anyQueue());
	}

	// producers

	private boolean create() {
		String id = "b" + (this.workflows.size() + 1);
		boolean failFast = this.random.nextBoolean();
		List<PreparedCommand> members = new ArrayList<>();
		for (int i = 0, count = 1 + this.random.nextInt(5); i < count; i++) {
			int maxAttempts = 1 + this.random.nextInt(2);
			members.add(new PreparedCommand(anyQueue(), EnqueueCommand.withGeneratedId(id + "m" + i, Due.NOW,
					"\"job\":\"member\",\"maxAttempts\":" + maxAttempts + ",\"payload\":\"" + id + "\"}")));
		}
		BatchCommand command = new BatchCommand(id, failFast ? BatchDeathPolicy.FAIL_FAST : BatchDeathPolicy.CARRY_ON,
				Duration.ofMinutes(10), members, callback(id, "success"), callback(id, "complete"));
		String callId = ResendProtection.newId();
		Batch batch = new Batch(id, failFast, members.stream().map(Member::new).toList(),
				() -> this.batches.getCreationOperations().createOnce(command, callId, WINDOW));
		members.forEach((member) -> this.batchOfMember.put(member.command().id(), batch));
		this.batches.getCreationOperations().createOnce(command, callId, WINDOW);
		String again = created(batch);
		trace("a relay creates " + id + " (" + (failFast ? "fail fast" : "carry on") + ") of "
				+ members.stream().map((member) -> member.command().id() + "@" + member.queue()).toList() + again);
		return true;
	}

	// workers

	/**
	 * A running member adds members to its batch: accepted while the member is pending in
	 * it (it runs, or its completion is not handed over yet), refused otherwise.
	 */
	private boolean add() {
		Held adder = anyHeldMember();
		if (adder == null) {
			return false;
		}
		Batch batch = this.batchOfMember.get(adder.job().id());
		String batchId = batch.id;
		String queue = anyQueue();
		int number = batch.members.size();
		String outcome;
		if (enabled(Fault.ADD_NOT_ENQUEUED, 0.3)) {
			// the add's first step, as the dispatcher takes it, then its process dies
			String id = batchId + "-lost" + number;
			List<?> reply = this.redis.execute(ADD, this.store.batchKeys(batchId).all(), "add", adder.job().id(), queue,
					ResendProtection.newId(), id);
			if (Long.valueOf(1).equals(reply.get(0))) {
				Member member = new Member(queue, id);
				// never enqueued: it counts cancelled once the adding member finished
				member.first = 'c';
				batch.members.add(member);
				this.batchOfMember.put(id, batch);
				outcome = "added " + id + " (member " + number + "), then its process dies before the enqueue";
			}
			else {
				outcome = "refused: " + reply;
			}
			trace("running " + adder + " adds a member of " + queue + " to " + batchId + ": " + outcome);
			return true;
		}
		try {
			List<DispatchResult> added = this.dispatcher.addToBatch(batchId, adder.job().id(),
					List.of(JobRequest.of(queue, batchId).build()));
			// the dispatcher generates the id: the tester names members by their batch
			String id = added.get(0).id();
			batch.members.add(new Member(queue, id));
			this.batchOfMember.put(id, batch);
			outcome = "added " + id + " (member " + number + ")";
		}
		catch (IllegalStateException ex) {
			outcome = "refused: " + ex.getMessage();
		}
		trace("running " + adder + " adds a member of " + queue + " to " + batchId + ": " + outcome);
		return true;
	}

	@SuppressWarnings("rawtypes")
	private static RedisScript<List> script() {
		try {
			return RedisScript.of(new ClassPathResource("batch.lua", BatchOperations.class)
				.getContentAsString(StandardCharsets.UTF_8), List.class);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
