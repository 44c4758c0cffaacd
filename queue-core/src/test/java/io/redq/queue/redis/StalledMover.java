package io.redq.queue.redis;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * A mover (a migrator handing a queue's finishes over, see
 * {@link BatchOperations#handOver}) that stalls between its steps, for the workflow
 * testers: it applies the hand-overs to their workflows at once, then delivers what they
 * call for one piece at a time, as a live mover that other movers and cancels overtake. A
 * batch step of a chain is created in the steps of
 * {@link BatchCreationOperations#createOnce}: the batch, its members' enqueues (those of
 * its first queue alone first), its seal. The hand-overs are removed last, so that other
 * movers apply them meanwhile.
 *
 * @author Redq team
 */
public final class StalledMover {

	private final Deque<Piece> pieces = new ArrayDeque<>();

	/** The chains whose next step (or on-failure job) it has to deliver. */
	private final Set<String> chains = new LinkedHashSet<>();

	private StalledMover() {
	}

	/**
	 * Apply the hand-overs of a queue as a mover does, and keep what they call for.
	 * @param store the queues
	 * @param batches the batches, with the chains of their steps, under test
	 * @param queue the queue
	 * @return the stalled mover, or {@code null} when the queue has nothing to hand over
	 */
	public static @Nullable StalledMover applyHandOvers(QueueStore store, BatchOperations batches, String queue) {
		String handover = store.keys(queue).handover();
		Set<String> read = store.getTemplate()
			.opsForZSet()
			.range(handover, 0, BatchOperations.HAND_OVER_BATCH_SIZE - 1);
		List<String> entries = (read != null) ? read.stream().filter((entry) -> !entry.isEmpty()).toList() : List.of();
		if (entries.isEmpty()) {
			return null;
		}
		Map<String, List<String>> byLink = new LinkedHashMap<>();
		for (String entry : entries) {
			String[] parts = entry.split("\n", 3);
			List<String> args = byLink.computeIfAbsent(parts[0],
					(link) -> new ArrayList<>(List.of("apply", ShardNames.queueOf(queue))));
			args.add(parts[1]);
			args.add(parts[2]);
		}
		StalledMover mover = new StalledMover();
		ChainOperations chains = batches.chains();
		byLink.forEach((link, args) -> {
			if (ChainOperations.isLink(link)) {
				String chainId = link.substring(link.indexOf(':') + 1);
				mover.chainPieces(batches, chainId, chains.run(chainId, args));
			}
			else {
				List<?> reply = batches.run(link, args);
				mover.add("delivers what batch " + link + " calls for: " + reply, () -> batches.deliver(link, reply));
			}
		});
		mover.add("removes the hand-overs " + entries.size(),
				() -> store.getTemplate().opsForZSet().remove(handover, entries.toArray()));
		return mover;
	}

	/**
	 * The pieces of what a chain's reply calls for: each job as {@link ChainOperations}
	 * delivers it, a batch step in the steps of its creation.
	 */
	private void chainPieces(BatchOperations batches, String chainId, List<?> reply) {
		ChainOperations chains = batches.chains();
		for (int i = 1; i < reply.size(); i += 2) {
			String name = (String) reply.get(i);
			String stored = (String) reply.get(i + 1);
			// a step (s<i>) may be a batch; the on-failure job and the parent's hand-over
			// are not
			PreparedCommand job = name.startsWith("s") ? StoredJob.parse(stored) : null;
			if (job != null) {
				this.chains.add(chainId);
			}
			if (job == null || !ChainOperations.isBatch(job)) {
				List<?> one = List.of(reply.get(0), name, stored);
				add("delivers " + name + " of chain " + chainId, () -> chains.deliver(chainId, one));
				continue;
			}
			BatchCommand batch = BatchCommand.unnest(job);
			Duration window = chains.deliveryWindow(Duration.ofMillis(Long.parseLong(reply.get(0).toString())));
			// the call id and link under which ChainOperations#deliver creates it
			String callId = "chain:" + chainId + ":" + name;
			boolean[] created = new boolean[1];
			add("creates batch step " + batch.id(), () -> created[0] = batches.getCreationOperations()
				.create(batch, window, ChainOperations.link(chainId)));
			PreparedCommand first = batch.members().get(0);
			BatchCommand firstQueue = new BatchCommand(batch.id(), batch.deathPolicy(), batch.linger(),
					batch.members().stream().filter((member) -> member.queue().equals(first.queue())).toList(),
					batch.onSuccess(), batch.onComplete());
			add("enqueues the members of batch step " + batch.id() + " in " + first.queue(), () -> {
				if (created[0]) {
					batches.getCreationOperations().enqueueMembers(firstQueue, callId, window);
				}
			});
			// the rest, the first queue's calls again, which Redis remembers
			add("enqueues the other members of batch step " + batch.id(), () -> {
				if (created[0]) {
					batches.getCreationOperations().enqueueMembers(batch, callId, window);
				}
			});
			add("seals batch step " + batch.id(), () -> batches.getCreationOperations().seal(batch.id()));
			add("records " + name + " of chain " + chainId + " delivered",
					() -> chains.run(chainId, List.of("delivered", name)));
		}
	}

	private void add(String description, Runnable action) {
		this.pieces.add(new Piece(description, action));
	}

	/**
	 * Return the chains whose next step it has read, for a cancel to overtake it.
	 * @return the chain ids
	 */
	public Set<String> chains() {
		return this.chains;
	}

	/**
	 * Return whether the mover has pieces left.
	 * @return whether it has
	 */
	public boolean stalled() {
		return !this.pieces.isEmpty();
	}

	/**
	 * Deliver the next piece.
	 * @return what it did
	 */
	public String goOn() {
		Piece piece = this.pieces.removeFirst();
		piece.action.run();
		return piece.description;
	}

	private record Piece(String description, Runnable action) {

	}

}
