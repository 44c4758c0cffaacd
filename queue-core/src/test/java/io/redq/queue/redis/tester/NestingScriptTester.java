package io.redq.queue.redis.tester;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.Due;
import io.redq.queue.redis.BatchOperations;
import io.redq.queue.redis.ChainOperations;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.PreparedBatch;
import io.redq.queue.redis.PreparedChain;
import io.redq.queue.redis.PreparedCommand;
import io.redq.queue.redis.PreparedWorkflows;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.WorkflowDispatcher;

/**
 * Drives nested workflows through the steps of the {@link WorkflowScriptTester} and its
 * own: trees of batches and chains up to {@value #DEPTH} levels deep (a batch of jobs,
 * batches and chains; a chain of jobs and batch steps), sent as the
 * {@link WorkflowDispatcher} sends them, then cancelled at any level and their member
 * queues purged, so that the migrator's sweep ends what the purge left. After every step
 * it checks the models of every batch and chain of the tree: each nested workflow's end
 * counted once by its parent, as it ended; each callback and on-failure job enqueued at
 * most once and only when due; no chain step, nested batch or not, before its predecessor
 * succeeded or after its chain ended; at the end, exactly once.
 *
 * @author Redq team
 */
final class NestingScriptTester extends WorkflowScriptTester {

	static final List<String> QUEUES = List.of("nested-0", "nested-1");

	/** How deep a tree goes: a root, its nested workflows and theirs. */
	static final int DEPTH = 3;

	private static final Duration LINGER = Duration.ofMinutes(10);

	private final WorkflowDispatcher trees;

	private int roots;

	NestingScriptTester(RedisJobQueueOperations operations, BatchOperations handOvers, ChainOperations chains,
			int steps, Set<Fault> faults, long seed) {
		super(operations, handOvers, chains, QUEUES, steps, faults, seed);
		this.trees = this.dispatcher.getWorkflowDispatcher();
	}

	@Override
	boolean nextStep() {
		int choice = this.random.nextInt(100);
		if (choice < 7) {
			return create();
		}
		if (choice < 30) {
			return reserve(anyQueue());
		}
		if (choice < 37) {
			return reserve(CALLBACKS);
		}
		if (choice < 57) {
			return ack();
		}
		if (choice < 66) {
			return fail();
		}
		if (choice < 69) {
			return revive();
		}
		if (choice < 72) {
			return cancel();
		}
		if (choice < 73) {
			return purge();
		}
		if (choice < 80) {
			migrate(anyQueue());
			return true;
		}
		return handOver(anyQueue());
	}

	// producers

	private boolean create() {
		String id = "t" + ++this.roots;
		List<String> created = new ArrayList<>();
		if (this.random.nextBoolean()) {
			this.trees.sendBatch(batch(id, 1, created));
		}
		else {
			this.trees.sendChain(chain(id, 1, created));
		}
		trace("a producer sends the tree " + created);
		return true;
	}

	/**
	 * A batch at the given depth, of jobs and, above the deepest level, batches and
	 * chains, modelled as it is prepared.
	 */
	private PreparedBatch batch(String id, int depth, List<String> created) {
		boolean failFast = this.random.nextBoolean();
		List<PreparedCommand> jobs = jobs(id + "m", 1 + this.random.nextInt((depth < DEPTH) ? 2 : 3));
		List<PreparedBatch> batches = new ArrayList<>();
		List<PreparedChain> chains = new ArrayList<>();
		// a root batch nests always, a nested one may
		int nested = (depth == 1) ? 1 + this.random.nextInt(2) : (depth < DEPTH) ? this.random.nextInt(2) : 0;
		for (int i = 0; i < nested; i++) {
			if (this.random.nextBoolean()) {
				batches.add(batch(id + "b" + i, depth + 1, created));
			}
			else {
				chains.add(chain(id + "c" + i, depth + 1, created));
			}
		}
		List<Member> members = new ArrayList<>(jobs.stream().map(Member::new).toList());
		batches.forEach((batch) -> members.add(new Member("{batch}", batch.id())));
		chains.forEach((chain) -> members.add(new Member("{chain}", chain.id())));
		this.workflows.put(id, new Batch(id, failFast, members, null));
		created.add(id + (failFast ? " (fail fast)" : "") + " of " + members);
		return PreparedWorkflows.batch(id, failFast ? BatchDeathPolicy.FAIL_FAST : BatchDeathPolicy.CARRY_ON, LINGER,
				jobs, batches, chains, callback(id, "success"), callback(id, "complete"));
	}

	/**
	 * A chain at the given depth, of jobs and, above the deepest level, batch steps of
	 * jobs, modelled as it is prepared.
	 */
	private PreparedChain chain(String id, int depth, List<String> created) {
		List<Object> steps = new ArrayList<>();
		List<Member> members = new ArrayList<>();
		for (int i = 1, count = 2 + this.random.nextInt(2); i <= count; i++) {
			String stepId = id + ":" + i;
			if (depth < DEPTH && this.random.nextInt(3) == 0) {
				boolean failFast = this.random.nextBoolean();
				List<PreparedCommand> jobs = jobs(stepId + "m", 1 + this.random.nextInt(2));
				this.workflows.put(stepId, new Batch(stepId, failFast, jobs.stream().map(Member::new).toList(), null));
				created.add(stepId + (failFast ? " (fail fast)" : "") + " of " + jobs.size());
				steps.add(PreparedWorkflows.batch(stepId,
						failFast ? BatchDeathPolicy.FAIL_FAST : BatchDeathPolicy.CARRY_ON, LINGER, jobs, List.of(),
						List.of(), callback(stepId, "success"), callback(stepId, "complete")));
				members.add(new Member("{batch}", stepId));
			}
			else {
				PreparedCommand job = job(stepId);
				steps.add(job);
				members.add(new Member(job));
			}
		}
		this.workflows.put(id, new Chain(id, members, null));
		created.add(id + " of " + members);
		return PreparedWorkflows.chain(id, LINGER, steps, callback(id, "failure"));
	}

	/** Jobs on any member queue, under the given prefix and a number. */
	private List<PreparedCommand> jobs(String prefix, int count) {
		List<PreparedCommand> jobs = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			jobs.add(job(prefix + i));
		}
		return jobs;
	}

	private PreparedCommand job(String id) {
		return new PreparedCommand(anyQueue(), EnqueueCommand.withGeneratedId(id, Due.NOW,
				"\"job\":\"member\",\"maxAttempts\":" + (1 + this.random.nextInt(2)) + ",\"payload\":\"" + id + "\"}"));
	}

}
