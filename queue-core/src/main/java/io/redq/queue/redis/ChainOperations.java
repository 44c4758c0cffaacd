package io.redq.queue.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.ChainStatus.StepState;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * Chains in Redis: their creation, the hand-over of their steps' finishes from the steps'
 * queues, the enqueue of each next step and of the on-failure job, reads and
 * cancellation.
 * <p>
 * A chain keeps its state under a hash tag of its own ({@link Keyspace#chain}, see
 * {@code chain.lua}), since its steps live in queues of any slot. A step is linked to its
 * chain as a batch member is to its batch, under the link {@code chain:<chain id>}: its
 * finish is recorded in its own queue's slot in the same step as its acknowledgement or
 * death, and the migrator of that queue hands it over ({@link BatchOperations#handOver},
 * which passes chain links here). The step that finds the current step succeeded moves
 * the chain on; the next step is then enqueued in its queue under its fixed id as a call
 * that Redis remembers for the chain's linger, so that enqueueing it again (a mover that
 * died before it recorded the delivery) changes nothing, even after the step ran.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class ChainOperations {

	/**
	 * How long a chain whose creation did not finish is kept: its key then expires.
	 */
	public static final Duration CREATION_WINDOW = BatchOperations.CREATION_WINDOW;

	/** The name of the on-failure job, as {@code chain.lua} keeps it. */
	static final String FAILURE = "failure";

	private static final String LINK_PREFIX = "chain:";

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> SCRIPT = script();

	/**
	 * Drops the steps a step's link carries (see {@code batch_member_done} in
	 * {@code common.lua}), keeping the link: KEYS the queue's batch links, ARGV the
	 * step's id. Changes nothing when run again.
	 */
	private static final RedisScript<Long> UNLINK_LATER_STEPS = RedisScript.of("""
			local link = redis.call('HGET', KEYS[1], ARGV[1])
			local cut = link and string.find(link, '\\0', 1, true)
			if cut then
				redis.call('HSET', KEYS[1], ARGV[1], string.sub(link, 1, cut - 1))
			end
			return 0
			""", Long.class);

	private final QueueStore store;

	@SuppressWarnings("rawtypes")
	private final RedisScript<List> script;

	private final EnqueueOperations enqueueOperations;

	/** The batches that are steps of chains, or that chains are members of. */
	private final BatchOperations batchOperations;

	/** The index of the chains, {@link Keyspace#chainIndex()}. */
	private final CreationIndex index;

	/**
	 * Create an instance.
	 * @param store the queues
	 */
	public ChainOperations(QueueStore store) {
		this(new EnqueueOperations(store), null, null);
	}

	/**
	 * Create an instance that runs another version of {@code chain.lua}: for tests that
	 * check what its invariants catch.
	 * @param store the queues
	 * @param script the chain script
	 */
	@SuppressWarnings("rawtypes")
	public ChainOperations(QueueStore store, RedisScript<List> script) {
		this(new EnqueueOperations(store), script, null);
	}

	/**
	 * Create an instance that enqueues with the given operations and runs the given
	 * version of {@code chain.lua} or the shipped one, whose batches are the given ones
	 * or its own.
	 */
	@SuppressWarnings("rawtypes")
	ChainOperations(EnqueueOperations enqueueOperations, @Nullable RedisScript<List> script,
			@Nullable BatchOperations batchOperations) {
		QueueStore store = enqueueOperations.getStore();
		this.store = store;
		this.script = (script != null) ? script : SCRIPT;
		this.enqueueOperations = enqueueOperations;
		this.batchOperations = (batchOperations != null) ? batchOperations
				: new BatchOperations(enqueueOperations, this);
		this.index = new CreationIndex(store.getTemplate(), store.getKeyspace().chainIndex(),
				(id) -> Boolean.TRUE.equals(store.getTemplate().hasKey(store.getKeyspace().chain(id))));
	}

	/**
	 * Return the link of a chain's steps: what their queues' hand-overs name instead of a
	 * batch id.
	 * @param chainId the chain id
	 * @return the link
	 */
	static String link(String chainId) {
		return LINK_PREFIX + chainId;
	}

	/**
	 * Return whether a hand-over's link names a chain: no batch id starts so.
	 * @param link the link
	 * @return whether it is a chain's
	 */
	static boolean isLink(String link) {
		return link.startsWith(LINK_PREFIX);
	}

	/**
	 * Create a chain that is not open yet: its steps, the jobs of the later ones and its
	 * on-failure job. The caller then enqueues the first step with the returned link, and
	 * {@link #open(String)} opens the chain; a chain never opened expires after the
	 * creation window. Made again before the chain is opened, it changes nothing.
	 * <p>
	 * A step in the same queue as the step before it is carried by that step's link (see
	 * {@code batch_member_done} in {@code common.lua}), whose acknowledgement creates it;
	 * the chain keeps the job of every other later step, and enqueues it once the step
	 * before succeeded.
	 * <p>
	 * A step that is a batch ({@link BatchCommand#nest}) is kept by the chain likewise,
	 * and created once the step before succeeded; its end reaches the chain as its
	 * parent.
	 * @param chain the chain: the first step is created by the caller
	 * @param creationWindow how long the chain is kept when it is not opened
	 * @param parent the id of the batch the chain is a member of, or {@code null}
	 * @return the link to enqueue the first step with, or {@code null} when the chain was
	 * opened already
	 */
	@Nullable String create(ChainCommand chain, Duration creationWindow, @Nullable String parent) {
		List<PreparedCommand> steps = chain.steps();
		List<String> args = new ArrayList<>(5 + steps.size() * 3);
		args.addAll(
				List.of("create", Long.toString(creationWindow.toMillis()), Long.toString(chain.linger().toMillis()),
						StoredJob.format(chain.onFailure()), (parent != null) ? parent : ""));
		for (int i = 0; i < steps.size(); i++) {
			PreparedCommand step = steps.get(i);
			args.add(step.queue());
			args.add(step.command().id());
			boolean carried = i == 0 || (step.queue().equals(steps.get(i - 1).queue()) && !isBatch(step));
			args.add(carried ? "" : StoredJob.format(step) + sameQueueSteps(steps, i));
		}
		if (!run(chain.id(), args).equals(List.of(1L))) {
			return null;
		}
		this.index.add(chain.id());
		return link(chain.id()) + sameQueueSteps(steps, 0);
	}

	/**
	 * Create a chain under the id chosen at its dispatch, enqueue its first step and open
	 * it, as a call that its caller may make again: an outbox relay that died before it
	 * recorded the row applied. Made again, it changes nothing: the chain's creation
	 * writes the same steps while it is not open, the first step's enqueue is a call
	 * Redis remembers under {@code <callId>.1} for the window, and a chain opened before
	 * is only asked for the job it has not delivered yet. So that a call made again
	 * within the window finds the chain, it is kept at least the window once it ended,
	 * and a creation left half-done at least the window.
	 * @param chain the chain
	 * @param callId the call's id, unique and unguessable (see
	 * {@link ResendProtection#newId()})
	 * @param window how long Redis remembers the call
	 */
	public void createOnce(ChainCommand chain, String callId, Duration window) {
		createOnce(chain, callId, window, null);
	}

	/**
	 * Create a chain as {@link #createOnce(ChainCommand, String, Duration)} does, as a
	 * member of the given batch.
	 * @param chain the chain
	 * @param callId the call's id
	 * @param window how long Redis remembers the call
	 * @param parent the id of the batch the chain is a member of, or {@code null}
	 */
	void createOnce(ChainCommand chain, String callId, Duration window, @Nullable String parent) {
		ChainCommand kept = new ChainCommand(chain.id(), BatchOperations.maximum(chain.linger(), window), chain.steps(),
				chain.onFailure());
		String link = create(kept, BatchOperations.maximum(CREATION_WINDOW, window), parent);
		if (link != null) {
			try {
				start(chain.steps().get(0), callId + ".1", window, link);
			}
			catch (EnqueueOperations.Forestalled ex) {
				// the batch it is nested in was cancelled meanwhile, which ended it (see
				// cancelCreating): the opening hands that end over
			}
		}
		open(chain.id());
	}

	/**
	 * Enqueue a step, or create a step that is a batch, as a call Redis remembers.
	 */
	private void start(PreparedCommand step, String callId, Duration window, String link) {
		if (isBatch(step)) {
			this.batchOperations.getCreationOperations().createOnce(BatchCommand.unnest(step), callId, window, link);
		}
		else {
			this.enqueueOperations.enqueueOnce(step.queue(), callId, List.of(step.command()), window, link);
		}
	}

	/**
	 * Return whether a step is a batch ({@link BatchCommand#nest}).
	 */
	static boolean isBatch(PreparedCommand step) {
		return BatchOperations.BATCH_QUEUE.equals(step.queue());
	}

	/**
	 * The steps right after the given one that run in its queue, as its link carries
	 * them: each {@code \0<id>\n<due mode>\n<due value>\n<body>}.
	 */
	private static String sameQueueSteps(List<PreparedCommand> steps, int step) {
		StringBuilder carried = new StringBuilder();
		String queue = steps.get(step).queue();
		for (int i = step + 1; i < steps.size() && steps.get(i).queue().equals(queue) && !isBatch(steps.get(i)); i++) {
			carried.append('\0').append(StoredJob.format(steps.get(i)).substring(queue.length() + 1));
		}
		return carried.toString();
	}

	/**
	 * Open a chain whose first step is enqueued, and enqueue its next step when the first
	 * one finished meanwhile.
	 * @param chainId the chain id
	 */
	void open(String chainId) {
		deliver(chainId, run(chainId, List.of("open")));
	}

	/**
	 * Apply hand-overs of a queue's steps to their chain and enqueue what the chain then
	 * calls for (see {@link BatchOperations#handOver}).
	 * @param link the chain's link
	 * @param args {@code apply}, the queue, then per step its id and outcome
	 */
	void apply(String link, List<String> args) {
		String chainId = link.substring(LINK_PREFIX.length());
		deliver(chainId, run(chainId, args));
	}

	/**
	 * Return a chain's state and its steps'.
	 * @param chainId the chain id
	 * @return the chain, or empty when none is kept under that id
	 */
	public Optional<ChainStatus> find(String chainId) {
		String key = this.store.getKeyspace().chain(chainId);
		List<Object> meta = this.store.getTemplate()
			.opsForHash()
			.multiGet(key, List.of("state", "reason", "at", "steps"));
		if (meta.get(0) == null) {
			return Optional.empty();
		}
		ChainStatus.State state = state((String) meta.get(0));
		int at = Integer.parseInt((String) meta.get(2));
		int count = Integer.parseInt((String) meta.get(3));
		List<Object> fields = new ArrayList<>(count * 3);
		for (int i = 1; i <= count; i++) {
			fields.add("q" + i);
			fields.add("j" + i);
			fields.add("o" + i);
		}
		List<Object> found = this.store.getTemplate().opsForHash().multiGet(key, fields);
		List<ChainStatus.Step> steps = new ArrayList<>(count);
		for (int i = 1; i <= count; i++) {
			String queue = (String) found.get(i * 3 - 3);
			steps.add(new ChainStatus.Step(BatchOperations.BATCH_QUEUE.equals(queue) ? null : queue,
					(String) found.get(i * 3 - 2), stepState(i, at, found.get(i * 3 - 1), state)));
		}
		String reason = (String) meta.get(1);
		return Optional.of(new ChainStatus(chainId, state, (reason == null || reason.isEmpty()) ? null : reason,
				List.copyOf(steps)));
	}

	/**
	 * Return the result of a chain's step, read in the step's queue.
	 * @param <T> the result's type
	 * @param chainId the chain id
	 * @param step the step's position, from 1
	 * @param type the result's type, which its JSON is read as
	 * @return the result, empty when the step returned nothing or its result expired
	 * @throws IllegalStateException when the chain is no longer kept, or has no such step
	 * @throws IllegalArgumentException when the result cannot be read as {@code type}
	 */
	public <T> Optional<T> stepResult(String chainId, int step, Class<T> type) {
		Assert.notNull(type, "type must not be null");
		List<Object> found = this.store.getTemplate()
			.opsForHash()
			.multiGet(this.store.getKeyspace().chain(chainId), List.of("q" + step, "j" + step));
		String queue = (String) found.get(0);
		String id = (String) found.get(1);
		Assert.state(queue != null && id != null, () -> "Chain " + chainId + " has no step " + step
				+ ": it has fewer steps, or it ended longer ago than redq.batches.linger and is no longer kept");
		return Optional
			.ofNullable(this.store.getTemplate()
				.opsForValue()
				.get(this.store.keys(this.store.shardChoice().shardHolding(queue, id, null)).result(id)))
			.map((json) -> JobResults.read(queue, id, json, type));
	}

	/**
	 * Return a page of the index of the chains, newest first. A chain listed may have
	 * expired since: {@link #find(String)} finds none, and {@link #unlist} drops it.
	 * @param offset how many of the newest to skip
	 * @param count how many to return
	 * @return the ids of the chains, with their creation times, newest first
	 */
	public Map<String, Instant> listed(int offset, int count) {
		return this.index.listed(offset, count);
	}

	/**
	 * Return how many chains the index lists, those expired but not dropped yet included.
	 * @return the count
	 */
	public long listedCount() {
		return this.index.count();
	}

	/**
	 * Return when a chain was created, as the index of the chains lists it.
	 * @param chainId the chain id
	 * @return the creation time, or {@code null} when the index does not list it
	 */
	public @Nullable Instant createdAt(String chainId) {
		return this.index.createdAt(chainId);
	}

	/**
	 * Drop chains that expired from the index of the chains.
	 * @param chainIds the ids of the chains
	 */
	public void unlist(Collection<String> chainIds) {
		this.index.unlist(chainIds);
	}

	/**
	 * Cancel a running chain: no later step is enqueued, and its current step is
	 * cancelled in its queue, whose hand-over then ends the chain; a running step
	 * finishes. A chain whose current step is not recorded delivered ends at once: the
	 * step's enqueue (or its batch's creation) is forestalled, lest a live mover that
	 * read it before the cancel enqueue it after, then the step is cancelled in its queue
	 * all the same, since a mover may have enqueued it before, and died before it
	 * recorded the delivery; the end of a chain so ended is handed over to the batch it
	 * is nested in at once, since no step's hand-over may come. A cancel of a chain so
	 * ended (one re-sent after its reply was lost) forestalls and cancels again, and
	 * returns {@code false}.
	 * @param chainId the chain id
	 * @param timeout the longest wait for each call (to the chain's own keys, to the
	 * step's queue, to every shard of it that a forestall reaches, to the batch it is
	 * nested in), or {@code null} for the Redis command timeout
	 * @return whether a running chain was cancelled
	 * @throws org.springframework.dao.QueryTimeoutException when a call did not end
	 * within the timeout; it is not cancelled, and repeating the cancel is safe
	 */
	public boolean cancel(String chainId, @Nullable Duration timeout) {
		return cancel(chainId, timeout, null);
	}

	/**
	 * Cancel a chain nested in a batch that a live mover may still be creating (see
	 * {@link BatchCancelOperations#cancel(String, Duration, String)}): one that does not
	 * exist yet is made cancelled first, so that the mover's creation of it is refused;
	 * one that exists is cancelled as {@link #cancel(String, Duration)} does, or at once
	 * when it is still being created under the given call id, its first step's enqueue
	 * forestalled.
	 * @param chainId the chain id
	 * @param window how long a chain made cancelled is kept, at least as long as the
	 * mover's call may come
	 * @param timeout the longest wait for each call, or {@code null} for the Redis
	 * command timeout
	 * @param creationCallId the id of the call that creates the chain
	 * @return whether a chain was created under the id, whose end reaches the batch as it
	 * ends; {@code false} when it was made cancelled, for the caller to count
	 */
	boolean cancelCreating(String chainId, Duration window, @Nullable Duration timeout, String creationCallId) {
		if (run(chainId, List.of("forestall", QueueStore.millis(window)), timeout,
				"forestall the creation of chain '" + chainId + "'")
			.equals(List.of(1L))) {
			return false;
		}
		cancel(chainId, timeout, creationCallId);
		return true;
	}

	private boolean cancel(String chainId, @Nullable Duration timeout, @Nullable String creationCallId) {
		// the chain's own keys may live on a master that does not answer
		List<?> reply = run(chainId, (creationCallId != null) ? List.of("cancel", "creating") : List.of("cancel"),
				timeout, "cancel chain '" + chainId + "'");
		if (reply.size() < 3) {
			return false;
		}
		// {0, ...}: a cancel that ended the chain came before, this call re-sent after
		// its
		// reply was lost (or a later one), which forestalls and cancels as it would have
		boolean ended = Long.valueOf(0).equals(reply.get(0));
		List<?> result = ended ? reply.subList(1, reply.size()) : reply;
		long code = ((Number) result.get(0)).longValue();
		String queue = (String) result.get(1);
		String current = (String) result.get(2);
		// reply 3: cancelled while created, whose first step is enqueued under the
		// creation's call
		String callId = (code == 3) ? creationCallId + ".1" : stepCallId(chainId, current);
		// each later call (to the chain's keys, every shard of the step's queue or the
		// batch it is nested in) ends within the timeout: repeating the cancel is safe
		if (code >= 2) {
			AsyncCalls.within(() -> {
				forestall(chainId, queue, current, callId);
				return true;
			}, timeout, "forestall the enqueue of step '" + current + "' of cancelled chain '" + chainId + "'");
		}
		if (BatchOperations.BATCH_QUEUE.equals(queue)) {
			// a batch step is cancelled as a batch, whose end then ends the chain; one
			// not recorded delivered may be in a live mover's creation still
			this.batchOperations.getCancelOperations().cancel(current, timeout, (code >= 2) ? callId : null);
		}
		else {
			for (Object step : result.subList(2, result.size())) {
				String id = (String) step;
				// first its link, in the shard that holds the step, no longer creates the
				// step after it, then the step is cancelled
				String shard = this.store.shardChoice().shardHolding(queue, id, timeout);
				AsyncCalls.within(
						() -> this.store.getTemplate()
							.execute(UNLINK_LATER_STEPS, List.of(this.store.keys(shard).batchLinks()), id),
						timeout, "unlink the steps after step '" + id + "' of cancelled chain '" + chainId
								+ "' in queue '" + queue + "'");
				this.batchOperations.getCancelOperations()
					.cancelJob(queue, shard, id, timeout, "step '" + id + "' of chain " + chainId);
			}
		}
		if (code >= 2) {
			// the chain ended, and no step's hand-over may come: an apply of no
			// finishes returns its end for the batch it is nested in
			AsyncCalls.within(() -> {
				deliver(chainId, run(chainId, List.of("apply", queue)));
				return true;
			}, timeout, "end cancelled chain '" + chainId + "'");
		}
		return !ended;
	}

	/**
	 * Make the call that enqueues a chain's current step, or the creation of its batch,
	 * before the mover that read the step makes it, so that it changes nothing: the chain
	 * was cancelled between that mover's read and its enqueue.
	 */
	private void forestall(String chainId, String queue, String stepId, String callId) {
		Duration window = deliveryWindow(Duration.ofMillis(Long.parseLong(String
			.valueOf(this.store.getTemplate().opsForHash().get(this.store.getKeyspace().chain(chainId), "linger")))));
		if (BatchOperations.BATCH_QUEUE.equals(queue)) {
			this.batchOperations.getCancelOperations().forestall(stepId, window);
			return;
		}
		// the enqueue makes one call of this id per shard it sends to
		for (String shard : this.store.queueShards().shardsToOperate(queue)) {
			this.enqueueOperations.forestall(shard, callId, window);
		}
	}

	/**
	 * Return the id of the call that enqueues a step, or creates a batch step, as
	 * {@link #deliver} makes it.
	 */
	private static String stepCallId(String chainId, String stepId) {
		return "chain:" + chainId + ":s" + stepId.substring(stepId.lastIndexOf(':') + 1);
	}

	/**
	 * Enqueue the jobs that a chain's script returned, each under its fixed id as a call
	 * Redis remembers for the chain's linger (at least the re-send window), and hand the
	 * end of a chain that is a batch member over to that batch, then record each
	 * delivered. A step is linked to its chain; the on-failure job is not.
	 */
	void deliver(String chainId, List<?> undelivered) {
		if (undelivered.isEmpty()) {
			return;
		}
		Duration window = deliveryWindow(Duration.ofMillis(Long.parseLong(undelivered.get(0).toString())));
		for (int i = 1; i < undelivered.size(); i += 2) {
			String name = (String) undelivered.get(i);
			String stored = (String) undelivered.get(i + 1);
			if (BatchOperations.PARENT.equals(name)) {
				this.batchOperations.handToParent(stored, BatchOperations.CHAIN_QUEUE, chainId);
			}
			else if (FAILURE.equals(name)) {
				PreparedCommand job = StoredJob.parse(stored);
				this.enqueueOperations.enqueueOnce(job.queue(), "chain:" + chainId + ":" + name, List.of(job.command()),
						window);
			}
			else {
				// a step is kept with the steps after it in its queue, which its link
				// carries
				int carried = stored.indexOf('\0');
				try {
					start(StoredJob.parse((carried < 0) ? stored : stored.substring(0, carried)),
							"chain:" + chainId + ":" + name, window,
							link(chainId) + ((carried < 0) ? "" : stored.substring(carried)));
				}
				catch (EnqueueOperations.Forestalled ex) {
					// the chain was cancelled since it returned the step: nothing was
					// enqueued, nor ever will be
				}
			}
			run(chainId, List.of("delivered", name));
		}
	}

	/**
	 * Return how long Redis remembers the enqueue of a chain's step or on-failure job:
	 * the chain's linger, at least the re-send window.
	 */
	Duration deliveryWindow(Duration linger) {
		return BatchOperations.maximum(linger, this.store.getResendProtection().getWindow());
	}

	List<?> run(String chainId, List<String> args) {
		List<?> result = this.store.getTemplate()
			.execute(this.script, List.of(this.store.getKeyspace().chain(chainId)), args.toArray());
		return (result != null) ? result : List.of();
	}

	/**
	 * Run the chain script as {@link #run(String, List)} does, waiting at most the given
	 * time for its reply; a call that times out is not cancelled.
	 */
	private List<?> run(String chainId, List<String> args, @Nullable Duration timeout, String what) {
		return this.store.runForList(this.script, List.of(this.store.getKeyspace().chain(chainId)), args, timeout,
				what);
	}

	private static ChainStatus.State state(String state) {
		return switch (state) {
			case "creating" -> ChainStatus.State.CREATING;
			case "running" -> ChainStatus.State.RUNNING;
			case "succeeded" -> ChainStatus.State.SUCCEEDED;
			case "failed" -> ChainStatus.State.FAILED;
			default -> ChainStatus.State.CANCELLED;
		};
	}

	/**
	 * A step's state: a step that finished as its outcome says, else the current one
	 * runs, those after it wait while the chain runs and were cancelled once it ended. A
	 * step after the current one may run too: one that its predecessor's acknowledgement
	 * created in the same queue before the chain learned of it.
	 */
	private static StepState stepState(int step, int at, @Nullable Object outcome, ChainStatus.State chain) {
		if (step < at) {
			return StepState.SUCCEEDED;
		}
		if (outcome != null) {
			return switch (outcome.toString()) {
				case "s" -> StepState.SUCCEEDED;
				case "d" -> StepState.DEAD;
				default -> StepState.CANCELLED;
			};
		}
		if (chain.isEnded()) {
			return StepState.CANCELLED;
		}
		return (step == at) ? StepState.RUNNING : StepState.PENDING;
	}

	@SuppressWarnings("rawtypes")
	private static RedisScript<List> script() {
		ClassPathResource resource = new ClassPathResource("chain.lua", ChainOperations.class);
		try {
			return RedisScript.of(resource.getContentAsString(StandardCharsets.UTF_8), List.class);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Redq script " + resource, ex);
		}
	}

}
