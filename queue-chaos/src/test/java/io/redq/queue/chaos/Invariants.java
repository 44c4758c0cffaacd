package io.redq.queue.chaos;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.redq.queue.redis.QueueKeys;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checks every scenario ends with, run once the queue has drained.
 * <ul>
 * <li>no acknowledged enqueue is lost: each job completed (a DONE or LOST line in a
 * ledger, and gone from Redis) or is dead;</li>
 * <li>every job id is in at most one of ready / delayed / parked / reserved / dead, and
 * every stored job is in exactly one;</li>
 * <li>nothing stays in {@code reserved}, and no lease token is left behind;</li>
 * <li>a job ran more than once only if it was in flight when a fault hit.</li>
 * </ul>
 */
final class Invariants {

	private final ChaosSupport chaos;

	Invariants(ChaosSupport chaos) {
		this.chaos = chaos;
	}

	Outcome check(Collection<String> acknowledged, Set<String> inFlightAtFault) {
		QueueKeys keys = this.chaos.operations.getStore().keys(ChaosSupport.QUEUE);
		StringRedisTemplate redis = this.chaos.operations.getStore().getTemplate();
		Map<String, Integer> memberships = new HashMap<>();
		List<String> ready = redis.opsForList().range(keys.ready(), 0, -1);
		Set<String> delayed = redis.opsForZSet().range(keys.delayed(), 0, -1);
		// the member at +inf of data model 6 is no job
		Set<String> reserved = redis.opsForZSet()
			.rangeByScore(keys.reserved(), Double.NEGATIVE_INFINITY, Double.MAX_VALUE);
		Set<String> dead = redis.opsForZSet().range(keys.dead(), 0, -1);
		// a job parked behind a gate is its entry in its gate's line, which its record
		// in parked names (data model 7): '<gate>\0<arrival>\0<id>'
		Map<String, String> records = redis.<String, String>opsForHash().entries(keys.parked());
		for (String entry : redis.opsForZSet().range(keys.lines(), 0, -1)) {
			String id = entry.substring(entry.lastIndexOf('\0') + 1);
			if (entry.equals(records.get(id))) {
				memberships.merge(id, 1, Integer::sum);
			}
		}
		ready.forEach((id) -> memberships.merge(id, 1, Integer::sum));
		delayed.forEach((id) -> memberships.merge(id, 1, Integer::sum));
		reserved.forEach((id) -> memberships.merge(id, 1, Integer::sum));
		dead.forEach((id) -> memberships.merge(id, 1, Integer::sum));
		Set<Object> stored = redis.opsForHash().keys(keys.jobs());

		assertThat(reserved).as("jobs left in reserved after the queue drained").isEmpty();
		assertThat(redis.opsForHash().keys(keys.leases()))
			.as("lease tokens left behind (beside reserve.lua's field '')")
			.isSubsetOf("");
		assertThat(memberships.entrySet().stream().filter((entry) -> entry.getValue() > 1).map(Map.Entry::getKey))
			.as("job ids in more than one state")
			.isEmpty();
		assertThat(stored.stream().map(String.class::cast).filter((id) -> !memberships.containsKey(id)))
			.as("stored jobs in no state (orphans that nothing will ever run)")
			.isEmpty();

		List<LedgerEntry> entries = this.chaos.entries();
		Set<String> finished = new LinkedHashSet<>();
		Map<String, Integer> starts = new TreeMap<>();
		for (LedgerEntry entry : entries) {
			if (entry.finished()) {
				finished.add(entry.id());
			}
			if (entry.is("START")) {
				starts.merge(entry.id(), 1, Integer::sum);
			}
		}
		Set<String> lost = new LinkedHashSet<>();
		int completed = 0;
		int died = 0;
		for (String id : acknowledged) {
			if (dead.contains(id)) {
				died++;
			}
			else if (finished.contains(id) && !memberships.containsKey(id) && !stored.contains(id)) {
				completed++;
			}
			else {
				lost.add(id);
			}
		}
		assertThat(lost).as("acknowledged jobs that neither completed nor died").isEmpty();
		Set<String> duplicates = new LinkedHashSet<>();
		starts.forEach((id, count) -> {
			if (count > 1) {
				duplicates.add(id);
			}
		});
		assertThat(duplicates).as("jobs that ran more than once without being in flight when a fault hit")
			.isSubsetOf(inFlightAtFault);
		int extraRuns = starts.values().stream().mapToInt((count) -> count - 1).sum();
		Outcome outcome = new Outcome(acknowledged.size(), completed, died, duplicates.size(), extraRuns,
				inFlightAtFault.size());
		this.chaos.report(outcome.toString());
		return outcome;
	}

	/**
	 * What a scenario ended with.
	 *
	 * @param acknowledged jobs whose dispatch returned
	 * @param completed jobs that completed
	 * @param dead jobs in the dead set
	 * @param duplicates jobs that started more than once
	 * @param extraRuns starts beyond the first, over all jobs
	 * @param startedByFaulted jobs a faulted worker had started before the fault: those
	 * allowed to run again
	 */
	record Outcome(int acknowledged, int completed, int dead, int duplicates, int extraRuns, int startedByFaulted) {

	}

}
