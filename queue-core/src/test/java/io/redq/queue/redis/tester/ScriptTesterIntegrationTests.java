package io.redq.queue.redis.tester;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import io.redq.queue.redis.BatchOperations;
import io.redq.queue.redis.ChainOperations;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.RedisQueueExtension;
import io.redq.queue.redis.ScriptsBeforeLevels;
import io.redq.queue.redis.tester.ScriptTester.Invariant;
import io.redq.queue.redis.tester.ScriptTester.Settings;
import io.redq.queue.redis.tester.ScriptTester.Violation;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.WithRedis;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the {@link ScriptTester} on the queue scripts: seeded runs bounded in steps, with
 * the faults the scripts survive today unless {@code -Dredq.tester.faults} names others
 * ({@code all}, or a list of {@link Fault} names, where {@code safe} stands for today's
 * default); {@code -Dredq.tester.seed} runs one seed; {@code -Dredq.tester.long=true}
 * adds a run of several minutes with more actors and jobs, beside an instance with the
 * scripts from before priority levels on the same queue (the short runs and the checks
 * that the tester finds the bugs of mutated scripts run them alone, unless the bug needs
 * that instance), and a run of the workflow testers ({@link BatchScriptTester},
 * {@link ChainScriptTester} and {@link NestingScriptTester}) as long.
 *
 * @author Redq team
 */
@WithRedis
@ExtendWith(RedisQueueExtension.class)
class ScriptTesterIntegrationTests {

	private static final Settings SHORT = new Settings(400, 3, 4, 2, 6,
			Fault.parse(System.getProperty(Fault.PROPERTY)));

	private static final Settings LONG = new Settings(5000, 6, 10, 3, 20, SHORT.faults());

	private static final int SHORT_SEEDS = 12;

	/** The batch tester's runs: fewer, since it checks every batch after each step. */
	private static final int BATCH_STEPS = 300;

	private static final int BATCH_SEEDS = 6;

	/**
	 * The nesting tester's runs: trees of batches and chains, each checked after a step.
	 */
	private static final int NESTING_STEPS = 250;

	private static final int NESTING_SEEDS = 3;

	/** How many nesting runs at most look for a bug that a stalled mover shows. */
	private static final int STALL_SEEDS = 12;

	private static final Duration LONG_RUN = Duration.ofMinutes(Long.getLong("redq.tester.minutes", 5));

	private RedisConnectionFactory connectionFactory;

	@BeforeEach
	void connect(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Test
	void theScriptsKeepEveryInvariant() {
		Long seed = Long.getLong("redq.tester.seed");
		List<String> violations = new ArrayList<>();
		for (long each : (seed != null) ? List.of(seed) : seeds(1, SHORT_SEEDS)) {
			Violation violation = run(QueueScripts.load(), SHORT, each);
			if (violation != null) {
				violations.add("seed " + each + ": " + violation);
			}
		}
		assertThat(violations).as("runs with faults %s", SHORT.faults()).isEmpty();
	}

	@Test
	void theTesterFindsAReSentAdmitThatDefersItselfInTheAdmitScriptBeforeItsFix() {
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("admit")
				? QueueScripts.of(admitBeforeResendFix(), Long.class) : definition.load());
		Set<Fault> faults = EnumSet.of(Fault.ADMIT_RESENT);
		Violation violation = firstViolation(scripts, SHORT.withFaults(faults));
		assertThat(violation).isNotNull();
		assertThat(violation.invariant()).isEqualTo(Invariant.GATES);
	}

	static Stream<Arguments> dispatchScriptsWithoutTheirResendCheck() {
		return Stream.of(Arguments.of("enqueue", enqueueBeforeResendFix()),
				Arguments.of("enqueue", enqueueCheckingSingleJobsOnly()),
				Arguments.of("push", pushCheckingSingleJobsOnly()));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("dispatchScriptsWithoutTheirResendCheck")
	void theTesterFindsAReSentDispatchThatStoresItsJobsAgainInAScriptWithoutItsResendCheck(String name,
			String withoutCheck) {
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals(name)
				? QueueScripts.of(withoutCheck, List.class) : definition.load());
		// longer runs than the short ones: push.lua takes only a third of the plain jobs
		// due now at the default level and without a group, fewer since calls are shared
		Violation violation = firstViolation(scripts,
				SHORT.withSteps(1200).withFaults(EnumSet.of(Fault.ENQUEUE_RESENT_LATER)));
		assertThat(violation).isNotNull();
		// a generated id, never looked up, is stored again where it already is (in the
		// line of its level again, counted twice in its group); another job is stored
		// again after it ran; a job stored ready again while it waits for its retry is
		// reserved before its retry is due
		assertThat(violation.invariant()).as("%s", violation)
			.isIn(Invariant.ONE_STATE, Invariant.RUN_AGAIN_BY_RESEND, Invariant.EARLY, Invariant.LEVEL);
	}

	@Test
	void theTesterFindsReSentOperatorCallsThatActAgainInTheScriptsBeforeTheirFix() {
		Set<String> operatorScripts = Set.of("cancel", "reschedule", "revive");
		QueueScripts scripts = QueueScripts.from((definition) -> operatorScripts.contains(definition.name())
				? QueueScripts.of(withoutResendCheck(definition.name()), Long.class) : definition.load());
		Violation violation = firstViolation(scripts, SHORT.withFaults(EnumSet.of(Fault.OPERATOR_RESENT_LATER)));
		assertThat(violation).isNotNull();
		// a re-sent cancel removes a job dispatched since, a re-sent reschedule moves one
		// or replies otherwise, a re-sent retry revives a job that died again (and that
		// job may die again without a run the tester knows of)
		assertThat(violation.invariant()).isIn(Invariant.FINISHED_RUN_LOST, Invariant.EARLY,
				Invariant.RUN_AGAIN_BY_RESEND, Invariant.DEAD_WITHOUT_START);
	}

	@Test
	void theTesterFindsAReSentPurgeThatDeletesJobsDispatchedSinceInThePurgeScriptWithoutItsResendCheck() {
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("purge")
				? QueueScripts.of(withoutResendCheck("purge"), Long.class) : definition.load());
		Violation violation = firstViolation(scripts, SHORT.withFaults(EnumSet.of(Fault.OPERATOR_RESENT_LATER)));
		assertThat(violation).isNotNull();
		// a job dispatched after the purge vanishes when the purge comes again
		assertThat(violation.invariant()).isEqualTo(Invariant.FINISHED_RUN_LOST);
	}

	@Test
	void theTesterFindsAParkedJobLeftBehindAGateThatARunLeftWithoutWakingIt() {
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("hold")
				? QueueScripts.of(holdWithoutWaking(), List.class) : definition.load());
		Violation violation = firstViolation(scripts, SHORT.withFaults(EnumSet.noneOf(Fault.class)));
		assertThat(violation).isNotNull();
		assertThat(violation.invariant()).isEqualTo(Invariant.PARKED);
	}

	@Test // GH-36
	void theTesterFindsAParkedJobKeptInDelayedAtInfinityAsDataModel6KeptItInAnAdmitScriptOfDataModel7() {
		String park = "\tend_lease(id, token, 1, true)\n\treturn -2\n";
		String admit = mutated(QueueScripts.class, "admit.lua", park,
				park.replace("\treturn", "\tredis.call('ZADD', delayed, '+inf', id)\n\treturn"));
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("admit")
				? QueueScripts.of(admit, Long.class) : definition.load());
		Violation violation = firstViolation(scripts, SHORT);
		assertThat(violation).isNotNull();
		assertThat(violation.invariant()).as("%s", violation).isEqualTo(Invariant.PARKED);
	}

	@Test // GH-36
	void theTesterFindsAWokenJobsPlaceKeptByTheNewDispatchThatReplacedItInAnEnqueueScriptBeforeItsFix() {
		// before the fix only a parked job left its line when replaced
		String enqueue = mutated(QueueScripts.class, "enqueue.lua", "\t\t\tleave_lines(id)\n\t\t\tif scheduled then\n",
				"\t\t\tif scheduled then\n\t\t\t\tleave_lines(id)\n");
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("enqueue")
				? QueueScripts.of(enqueue, List.class) : definition.load());
		Violation violation = firstViolation(scripts, SHORT.withFaults(EnumSet.of(Fault.WOKEN_JOB_REPLACED)));
		assertThat(violation).isNotNull();
		assertThat(violation.invariant()).as("%s", violation).isEqualTo(Invariant.PARKED);
	}

	@Test // GH-36
	void theTesterFindsAJobLetThroughGatesThatAreNotItsOwnByTheLeaveThatHandsItOverInAHoldScriptWithoutItsCheck() {
		String hold = read(QueueScripts.class, "hold.lua");
		String unchecked = hold.replace("has_gates(handed[2], same_gates)", "true");
		assertThat(unchecked).as("the check of hold.lua that the gates are the leaver's").isNotEqualTo(hold);
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("hold")
				? QueueScripts.of(unchecked, List.class) : definition.load());
		// longer runs: it takes a line of the queue's running limit, where jobs of either
		// kind wait, for a job to be handed over to a run of the other kind
		Violation violation = firstViolation(scripts, SHORT.withSteps(4000).withFaults(EnumSet.noneOf(Fault.class)));
		assertThat(violation).isNotNull();
		// let through into the other kind's running set, which its leave does not free: a
		// running limit counts a run that left, or a job waits behind a place nothing
		// holds or hands on
		assertThat(violation.invariant()).as("%s", violation).isIn(Invariant.GATES, Invariant.PARKED);
	}

	@Test // GH-36
	void theTesterFindsARunThatLeavesItsPlaceHeldInAHoldScriptThatSkipsTheRunningSetsWithALimit() {
		String hold = read(QueueScripts.class, "hold.lua");
		String skipping = hold.replace("(tonumber(ARGV[5 + i]) or 1) > 0", "(tonumber(ARGV[5 + i]) or 1) <= 0");
		assertThat(skipping).as("the running sets that a leave of hold.lua skips").isNotEqualTo(hold);
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("hold")
				? QueueScripts.of(skipping, List.class) : definition.load());
		Violation violation = firstViolation(scripts, SHORT.withFaults(EnumSet.noneOf(Fault.class)));
		assertThat(violation).isNotNull();
		// a running limit counts a run that left, or a job waits behind a place nothing
		// holds or hands on
		assertThat(violation.invariant()).as("%s", violation).isIn(Invariant.GATES, Invariant.PARKED);
	}

	@Test // GH-36
	void theTesterFindsJobsThatJoinARunWithPlacesOfTheirOwnInAHoldScriptThatIgnoresTheLimit() {
		String join = "join_run(handed, handed_gate, tonumber(ARGV[10]) or 0, same_gates, now, lease)\n";
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("hold")
				? QueueScripts.of(mutated(QueueScripts.class, "hold.lua", join, join + """
						for i = 6, #handed, 4 do
							redis.call('ZADD', job_running, now + lease, handed[i] .. ':' .. handed[i + 3])
						end
						"""), List.class) : definition.load());
		// the long runs' actors and ids, in short runs: runs form where several jobs of
		// the
		// same gates wait in a line
		Violation violation = firstViolation(scripts, new Settings(1000, LONG.producers(), LONG.workers(),
				LONG.migrators(), LONG.callerIds(), EnumSet.noneOf(Fault.class)));
		assertThat(violation).isNotNull();
		// the job's running set of a limit of one counts the run's later jobs beside its
		// place: more holders than the limit, none of them the place of a started run
		assertThat(violation.invariant()).as("%s", violation).isEqualTo(Invariant.GATES);
	}

	@Test
	void theTesterFindsStatisticsThatCountAFailedAttemptWhoseLeaseIsGone() {
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("fail")
				? QueueScripts.of(failCountingLostLeases(), Long.class) : definition.load());
		Violation violation = firstViolation(scripts, SHORT.withFaults(EnumSet.of(Fault.FAIL_RESENT)));
		assertThat(violation).isNotNull();
		assertThat(violation.invariant()).isEqualTo(Invariant.STATISTICS);
	}

	@Test
	void theTesterFindsAReserveThatTakesStaleEntriesOfTheReadyListForJobs() {
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("reserve")
				? QueueScripts.of(reserveWithoutSkipping(), List.class) : definition.load());
		Violation violation = firstViolation(scripts, SHORT.withFaults(EnumSet.noneOf(Fault.class)));
		assertThat(violation).isNotNull();
		// a cancelled, replaced or rescheduled job's entry is reserved: a job without
		// data dies, a rescheduled job runs early, a job is in two places (also found as
		// a running job still waiting in the line of its level), or a level with jobs
		// waits beyond its bound while stale entries take the turns; which one comes
		// first follows from the Redis clock, so from the machine's load
		assertThat(violation.invariant()).as("%s", violation)
			.isIn(Invariant.ONE_STATE, Invariant.EARLY, Invariant.RUN_AGAIN_BY_RESEND, Invariant.LEVEL,
					Invariant.SHARES);
	}

	@Test // issue 37
	void theBatchScriptKeepsEveryBatchInvariant() {
		Long seed = Long.getLong("redq.tester.seed");
		List<String> violations = new ArrayList<>();
		for (long each : (seed != null) ? List.of(seed) : seeds(1, BATCH_SEEDS)) {
			Violation violation = batchTester(null, each).run();
			if (violation != null) {
				violations.add("seed " + each + ": " + violation);
			}
		}
		assertThat(violations).as("runs with faults %s", SHORT.faults()).isEmpty();
	}

	@Test // issue 37
	void theTesterFindsABatchThatCountsAMemberWithoutThePendingCheck() {
		String batch = read(BatchOperations.class, "batch.lua");
		String counting = batch.replace("if redis.call('SREM', pending, id) == 1 then",
				"redis.call('SREM', pending, id)\n\t\tdo");
		assertThat(counting).as("the pending check of batch.lua").isNotEqualTo(batch);
		Violation violation = null;
		for (long seed = 1; violation == null && seed <= BATCH_SEEDS; seed++) {
			violation = batchTester(counting, seed).run();
		}
		assertThat(violation).isNotNull();
		// a hand-over applied again counts its member twice, which may end the batch
		// early under a count
		assertThat(violation.invariant()).isIn(Invariant.BATCH_COUNTS, Invariant.CALLBACK_EARLY,
				Invariant.CALLBACK_ONCE);
	}

	@Test // issue 37
	void theTesterFindsABatchThatWaitsForMembersWhoseAddingProcessDiedBeforeTheirEnqueue() {
		String batch = read(BatchOperations.class, "batch.lua");
		String waiting = batch.replace("local adders = tonumber(redis.call('HGET', meta, 'adders') or '0') > 0",
				"local adders = false");
		assertThat(waiting).as("the settling of adds in batch.lua").isNotEqualTo(batch);
		Violation violation = null;
		for (long seed = 1; violation == null && seed <= BATCH_SEEDS; seed++) {
			violation = batchTester(waiting, seed).run();
		}
		assertThat(violation).isNotNull();
		// the batch never ends: its complete callback is never enqueued
		assertThat(violation.invariant()).isEqualTo(Invariant.CALLBACK_ONCE);
	}

	@Test // issue 37
	void theChainScriptKeepsEveryChainInvariant() {
		Long seed = Long.getLong("redq.tester.seed");
		List<String> violations = new ArrayList<>();
		for (long each : (seed != null) ? List.of(seed) : seeds(1, BATCH_SEEDS)) {
			Violation violation = chainTester(null, each).run();
			if (violation != null) {
				violations.add("seed " + each + ": " + violation);
			}
		}
		assertThat(violations).as("runs with faults %s", SHORT.faults()).isEmpty();
	}

	@Test // issue 37
	void theTesterFindsAChainThatGoesOnAfterAStepDied() {
		String chain = read(ChainOperations.class, "chain.lua");
		String goingOn = chain.replace("if outcome == 'd' or outcome == 'p' then", "if outcome == 'p' then");
		assertThat(goingOn).as("the death check of chain.lua").isNotEqualTo(chain);
		Violation violation = null;
		for (long seed = 1; violation == null && seed <= BATCH_SEEDS; seed++) {
			violation = chainTester(goingOn, seed).run();
		}
		assertThat(violation).isNotNull();
		// the step after a dead one starts, the chain succeeds, and its on-failure job
		// never runs
		assertThat(violation.invariant()).isIn(Invariant.STEP_ORDER, Invariant.CHAIN_END, Invariant.ON_FAILURE_ONCE);
	}

	@Test // issue 37
	void theWorkflowScriptsKeepEveryInvariantOfNestedWorkflows() {
		Long seed = Long.getLong("redq.tester.seed");
		List<String> violations = new ArrayList<>();
		for (long each : (seed != null) ? List.of(seed) : seeds(1, NESTING_SEEDS)) {
			Violation violation = nestingTester(QueueScripts.load(), null, null, each).run();
			if (violation != null) {
				violations.add("seed " + each + ": " + violation);
			}
		}
		assertThat(violations).as("runs with faults %s", SHORT.faults()).isEmpty();
	}

	@Test // issue 37
	void theTesterFindsANestedBatchWhoseFailureItsParentCountsAsASuccess() {
		String succeeding = mutated(BatchOperations.class, "batch.lua", "failed = 'd'", "failed = 's'");
		Violation violation = firstNestingViolation(QueueScripts.load(), succeeding, null);
		assertThat(violation).isNotNull();
		// a parent batch counts a success that no member of the nested batch made, or a
		// chain starts the step after a batch step that failed, or succeeds
		assertThat(violation.invariant()).as("%s", violation)
			.isIn(Invariant.BATCH_COUNTS, Invariant.STEP_ORDER, Invariant.CHAIN_END, Invariant.CALLBACK_EARLY);
	}

	@Test // issue 37
	void theTesterFindsANestedChainWhoseFailureItsParentCountsAsASuccess() {
		String succeeding = mutated(ChainOperations.class, "chain.lua", "failed = 'd'", "failed = 's'");
		Violation violation = firstNestingViolation(QueueScripts.load(), null, succeeding);
		assertThat(violation).isNotNull();
		// the batch holding the chain counts a success that no step made
		assertThat(violation.invariant()).as("%s", violation).isIn(Invariant.BATCH_COUNTS, Invariant.CALLBACK_EARLY);
	}

	@Test // issue 37
	void theTesterFindsANestedBatchThatNeverHandsItsEndToItsParent() {
		String keeping = mutated(BatchOperations.class, "batch.lua",
				"if found[1] ~= 'ended' or not (found[3] or found[4] or found[5]) then",
				"found[5] = nil\n\tif found[1] ~= 'ended' or not (found[3] or found[4]) then");
		Violation violation = firstNestingViolation(QueueScripts.load(), keeping, null);
		assertThat(violation).isNotNull();
		// the parent waits for the nested batch forever: its callbacks never come
		assertThat(violation.invariant()).as("%s", violation)
			.isIn(Invariant.CALLBACK_ONCE, Invariant.CHAIN_END, Invariant.ON_FAILURE_ONCE);
	}

	@Test // issue 37
	void theTesterFindsAPurgeThatDeletesTheLinksOfItsWorkflowMembers() {
		String dropping = mutated(QueueScripts.class, "purge.lua", "\tkept[batch_links] = true\n", "");
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("purge")
				? QueueScripts.of(dropping, Long.class) : definition.load());
		Violation violation = firstNestingViolation(scripts, null, null);
		assertThat(violation).isNotNull();
		// the purged members are never handed over: their workflows never end
		assertThat(violation.invariant()).as("%s", violation)
			.isIn(Invariant.CALLBACK_ONCE, Invariant.CHAIN_END, Invariant.ON_FAILURE_ONCE);
	}

	@Test // issue 37
	void theTesterFindsASweepThatHandsOverJobsDispatchedAfterThePurge() {
		String sweeping = mutated(QueueScripts.class, "migrate.lua",
				"if redis.call('HEXISTS', jobs, page[2][i]) == 0 then", "if true then");
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("migrate")
				? QueueScripts.of(sweeping, List.class) : definition.load());
		Violation violation = firstNestingViolation(scripts, null, null);
		assertThat(violation).isNotNull();
		// a member dispatched since counts purged while it waits or runs
		assertThat(violation.invariant()).as("%s", violation)
			.isIn(Invariant.BATCH_COUNTS, Invariant.CHAIN_END, Invariant.STEP_ORDER);
	}

	@Test // issue 37
	void theTesterFindsAChainCancelThatLetsAStalledMoverEnqueueTheStepItRead() {
		// the cancel's reply 2, with which its caller forestalls the step's enqueue
		String late = mutated(ChainOperations.class, "chain.lua",
				"local undelivered = creating or redis.call('HEXISTS', meta, 's' .. at) == 1",
				"local undelivered = creating");
		Violation violation = null;
		for (long seed = 1; violation == null && seed <= 2 * BATCH_SEEDS; seed++) {
			violation = chainTester(late, seed).run();
		}
		assertThat(violation).isNotNull();
		assertThat(violation.invariant()).as("%s", violation).isEqualTo(Invariant.NOTHING_AFTER_CANCEL);
	}

	@Test // issue 37
	void theTesterFindsAReSentChainCancelThatLetsAStalledMoverEnqueueTheStepItReadInAChainScriptWithoutItsResendBranch() {
		// the re-sent cancel of a chain that its first run ended replies {0}: its caller
		// forestalls nothing
		String forgetting = mutated(ChainOperations.class, "chain.lua",
				"elseif found[4] == '2' or (found[4] == '3' and ARGV[2] == 'creating') then", "elseif false then");
		Violation violation = null;
		for (long seed = 1; violation == null && seed <= 2 * BATCH_SEEDS; seed++) {
			violation = chainTester(forgetting, EnumSet.of(Fault.CANCEL_RESENT, Fault.MOVER_STALLS), seed).run();
		}
		assertThat(violation).isNotNull();
		assertThat(violation.invariant()).as("%s", violation).isEqualTo(Invariant.NOTHING_AFTER_CANCEL);
	}

	@Test // issue 37
	void theTesterFindsABatchStepThatAStalledMoverCreatesAfterItsChainsCancelWithoutTheForestall() {
		String unforestalled = mutated(BatchOperations.class, "batch.lua", "elseif op == 'forestall' then\n",
				"elseif op == 'forestall' then\n\tdo return {0} end\n");
		// its members start after the chain's cancel returned
		assertStallingRunsFind(unforestalled, Invariant.NOTHING_AFTER_CANCEL);
	}

	@Test // issue 37
	void theTesterFindsAForestalledBatchStepWhoseKeyNeverExpires() {
		String kept = mutated(BatchOperations.class, "batch.lua",
				"\tredis.call('PEXPIRE', meta, ARGV[2])\n\treturn {1}\nend\nreturn redis.error_reply",
				"\treturn {1}\nend\nreturn redis.error_reply");
		assertStallingRunsFind(kept, Invariant.KEYS_EXPIRE);
	}

	@Test // issue 37
	void theTesterFindsABatchStepsMembersEnqueuedAfterACancelThatCameWhileAStalledMoverCreatedIt() {
		// the cancel of a batch in creation, whose caller then forestalls the enqueues
		String openOnly = mutated(BatchOperations.class, "batch.lua",
				"if state ~= 'open' and not (state == 'creating' and ARGV[2] == 'creating') then",
				"if state ~= 'open' then");
		assertStallingRunsFind(openOnly, Invariant.NOTHING_AFTER_CANCEL);
	}

	@Test // GH-36
	void theTesterFindsAGroupLineLeftBehindByAJobTakenOutOfLineByOlderScriptsInAnEnqueueScriptBeforeItsFix() {
		QueueScripts scripts = QueueScripts.from((definition) -> definition.name().equals("enqueue")
				? QueueScripts.of(enqueueKeepingLeftMembers(), List.class) : definition.load());
		// the older instance acts in one step of 25: longer runs, so that it takes a
		// ready grouped job out of line and a job is dispatched under its id again
		Violation violation = firstViolation(scripts, SHORT.withSteps(4000), true);
		assertThat(violation).isNotNull();
		// a job stored at the id of one that the older scripts cancelled or replaced
		// inherits its member of queued, whose group keeps counting it
		assertThat(violation.invariant()).as("%s", violation).isEqualTo(Invariant.LEVEL);
	}

	@Test // GH-36
	void theTesterCountsNoLevelWithJobsForAMemberOfQueuedThatTheOlderScriptsLeftStale() {
		// seed 1015 of the long run: the older instance cancels a job that became ready
		// at
		// level 7, whose member of queued stays, counted stale, and a reservation of 3 at
		// levels 5 and 3 follows; level 7 has no job, so it waited for none (the tester
		// took it for a level with jobs, waiting past its bound of 2)
		Violation violation = tester(QueueScripts.load(), LONG.withSteps(3400), 1015, true).run();
		assertThat(violation).as("%s", violation).isNull();
	}

	@Test
	@EnabledIfSystemProperty(named = "redq.tester.long", matches = "true")
	void theScriptsKeepEveryInvariantInALongRun() {
		long end = System.nanoTime() + LONG_RUN.toNanos();
		List<String> violations = new ArrayList<>();
		long seed = Long.getLong("redq.tester.seed", 1000);
		int runs = 0;
		long steps = 0;
		// rare in the short runs: a container stops holding a run let through as it was
		// handed over
		int placesLeftOnStop = 0;
		while (System.nanoTime() < end) {
			ScriptTester tester = tester(QueueScripts.load(), LONG, seed, true);
			Violation violation = tester.run();
			runs++;
			steps += tester.steps();
			placesLeftOnStop += tester.placesLeftOnStop();
			if (violation != null) {
				violations.add("seed " + seed + ": " + violation);
			}
			seed++;
		}
		System.out.printf(
				"Script tester, long run: %d runs (seeds up to %d), %d steps, %d places left by stopping containers, "
						+ "%d violations, faults %s%n",
				runs, seed - 1, steps, placesLeftOnStop, violations.size(), LONG.faults());
		assertThat(violations).isEmpty();
	}

	@Test // issue 37
	@EnabledIfSystemProperty(named = "redq.tester.long", matches = "true")
	void theWorkflowScriptsKeepEveryInvariantInALongRun() {
		long end = System.nanoTime() + LONG_RUN.toNanos();
		List<String> violations = new ArrayList<>();
		long seed = Long.getLong("redq.tester.seed", 1000);
		int runs = 0;
		while (System.nanoTime() < end) {
			// batches, chains and trees of both in turn
			Violation violation = switch (runs % 3) {
				case 0 -> batchTester(null, seed).run();
				case 1 -> chainTester(null, seed).run();
				default -> nestingTester(QueueScripts.load(), null, null, seed).run();
			};
			if (violation != null) {
				violations.add("seed " + seed + " (" + List.of("batches", "chains", "nesting").get(runs % 3) + "): "
						+ violation);
			}
			runs++;
			seed++;
		}
		System.out.printf("Workflow script testers, long run: %d runs (seeds up to %d), %d violations, faults %s%n",
				runs, seed - 1, violations.size(), SHORT.faults());
		assertThat(violations).isEmpty();
	}

	private @Nullable Violation run(QueueScripts scripts, Settings settings, long seed) {
		return tester(scripts, settings, seed, false).run();
	}

	/**
	 * A tester of batches on a flushed Redis, with the given batch script or the shipped
	 * one.
	 */
	private BatchScriptTester batchTester(@Nullable String batchScript, long seed) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.serverCommands().flushAll();
		}
		RedisJobQueueOperations operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("redq"));
		BatchOperations batches = (batchScript != null)
				? new BatchOperations(operations.getStore(), RedisScript.of(batchScript, List.class))
				: operations.getBatchOperations();
		return new BatchScriptTester(operations, batches, BATCH_STEPS, SHORT.faults(), seed);
	}

	/**
	 * A tester of chains on a flushed Redis, with the given chain script or the shipped
	 * one.
	 */
	private ChainScriptTester chainTester(@Nullable String chainScript, long seed) {
		return chainTester(chainScript, SHORT.faults(), seed);
	}

	private ChainScriptTester chainTester(@Nullable String chainScript, Set<Fault> faults, long seed) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.serverCommands().flushAll();
		}
		RedisJobQueueOperations operations = new RedisJobQueueOperations(this.connectionFactory, QueueScripts.load(),
				new Keyspace("redq"));
		BatchOperations handOvers = workflows(operations, null, chainScript);
		return new ChainScriptTester(operations, handOvers.chains(), handOvers, BATCH_STEPS, faults, seed);
	}

	/**
	 * A tester of nested workflows on a flushed Redis, with the given queue scripts and
	 * the given batch and chain scripts or the shipped ones.
	 */
	private NestingScriptTester nestingTester(QueueScripts scripts, @Nullable String batchScript,
			@Nullable String chainScript, long seed) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.serverCommands().flushAll();
		}
		RedisJobQueueOperations operations = new RedisJobQueueOperations(this.connectionFactory, scripts,
				new Keyspace("redq"));
		BatchOperations handOvers = workflows(operations, batchScript, chainScript);
		return new NestingScriptTester(operations, handOvers, handOvers.chains(), NESTING_STEPS, SHORT.faults(), seed);
	}

	/**
	 * The batches, with their chains, that run the given batch and chain scripts or the
	 * shipped ones: the chains' cancels, batch steps and hand-overs run them too.
	 */
	private static BatchOperations workflows(RedisJobQueueOperations operations, @Nullable String batchScript,
			@Nullable String chainScript) {
		return new BatchOperations(operations.getStore(),
				RedisScript.of((batchScript != null) ? batchScript : read(BatchOperations.class, "batch.lua"),
						List.class),
				RedisScript.of((chainScript != null) ? chainScript : read(ChainOperations.class, "chain.lua"),
						List.class));
	}

	/**
	 * Run the nesting tester's seeds until one finds a violation, at most twice as many
	 * as its default run.
	 */
	private @Nullable Violation firstNestingViolation(QueueScripts scripts, @Nullable String batchScript,
			@Nullable String chainScript) {
		return firstNestingViolation(scripts, batchScript, chainScript, 2 * NESTING_SEEDS);
	}

	/**
	 * Assert that the nesting tester finds the given invariant violated in a run of the
	 * given batch script, whose bug only a cancel of a chain at a batch step that a mover
	 * stalled on shows: at most {@value #STALL_SEEDS} runs.
	 */
	private void assertStallingRunsFind(String batchScript, Invariant invariant) {
		Violation violation = firstNestingViolation(QueueScripts.load(), batchScript, null, STALL_SEEDS);
		assertThat(violation).isNotNull();
		assertThat(violation.invariant()).as("%s", violation).isEqualTo(invariant);
	}

	private @Nullable Violation firstNestingViolation(QueueScripts scripts, @Nullable String batchScript,
			@Nullable String chainScript, int seeds) {
		Violation violation = null;
		for (long seed = 1; violation == null && seed <= seeds; seed++) {
			violation = nestingTester(scripts, batchScript, chainScript, seed).run();
		}
		return violation;
	}

	/**
	 * Create a tester of the given scripts, beside an instance with the scripts from
	 * before priority levels or alone.
	 */
	private ScriptTester tester(QueueScripts scripts, Settings settings, long seed, boolean besideOlderScripts) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.serverCommands().flushAll();
		}
		return new ScriptTester(new RedisJobQueueOperations(this.connectionFactory, scripts, new Keyspace("redq")),
				besideOlderScripts ? ScriptsBeforeLevels.operations(this.connectionFactory, "redq") : null, settings,
				seed);
	}

	/**
	 * Run the short seeds of the scripts alone until one finds a violation: a run depends
	 * on timing (leases of a few ms), so a later seed finds it when one does not.
	 */
	private @Nullable Violation firstViolation(QueueScripts scripts, Settings settings) {
		return firstViolation(scripts, settings, false);
	}

	private @Nullable Violation firstViolation(QueueScripts scripts, Settings settings, boolean besideOlderScripts) {
		Violation violation = null;
		for (long seed = 1; violation == null && seed <= SHORT_SEEDS; seed++) {
			violation = tester(scripts, settings, seed, besideOlderScripts).run();
		}
		return violation;
	}

	private static List<Long> seeds(long first, int count) {
		List<Long> seeds = new ArrayList<>(count);
		for (long seed = first; seed < first + count; seed++) {
			seeds.add(seed);
		}
		return seeds;
	}

	/**
	 * The admit script without its re-send check, as it was before that fix.
	 */
	private static String admitBeforeResendFix() {
		String admit = read(QueueScripts.class, "admit.lua");
		String withoutCheck = admit.replaceFirst("(?s)\n-- A run found holding a gate.*?\nend\n", "\n");
		assertThat(withoutCheck).as("the re-send check of admit.lua").isNotEqualTo(admit);
		return withoutCheck;
	}

	/**
	 * The hold script leaving gates without waking their lines.
	 */
	private static String holdWithoutWaking() {
		String hold = read(QueueScripts.class, "hold.lua");
		String withoutWaking = hold.replaceAll("\n\t*wake(_line)?\\([^)]*\\)", "");
		assertThat(withoutWaking).as("the wakes of hold.lua").isNotEqualTo(hold);
		return withoutWaking;
	}

	/**
	 * The enqueue script leaving the member of queued and the kept place that the older
	 * scripts left at an id to the job stored there, as it was before that fix.
	 */
	private static String enqueueKeepingLeftMembers() {
		String enqueue = read(QueueScripts.class, "enqueue.lua");
		String keeping = enqueue.replace("\t\tforget_left_member(id)\n", "");
		assertThat(keeping).as("the forgetting of left members in enqueue.lua").isNotEqualTo(enqueue);
		return keeping;
	}

	/**
	 * The enqueue script without its check for a dispatch it remembers, as it was before
	 * that fix.
	 */
	private static String enqueueBeforeResendFix() {
		String enqueue = read(QueueScripts.class, "enqueue.lua");
		String withoutCheck = enqueue.replaceFirst("(?s)\n-- Lettuce re-sends an unanswered command.*?\nend\n", "\n");
		assertThat(withoutCheck).as("the re-send check of enqueue.lua").isNotEqualTo(enqueue);
		return withoutCheck;
	}

	/**
	 * The push script checking only a single job's call for a re-send, not a batch's: a
	 * batch's re-send is what it misses.
	 */
	private static String pushCheckingSingleJobsOnly() {
		String push = read(QueueScripts.class, "push.lua");
		String singleOnly = push.replace("if remembered() then", "if count == 1 and remembered() then");
		assertThat(singleOnly).as("the re-send check of push.lua").isNotEqualTo(push);
		return singleOnly;
	}

	/**
	 * The enqueue script checking only a single job's call for a re-send, not a shared
	 * call's: a re-sent call of several jobs of any policy, as concurrent dispatches
	 * share one, is what it misses.
	 */
	private static String enqueueCheckingSingleJobsOnly() {
		String enqueue = read(QueueScripts.class, "enqueue.lua");
		String singleOnly = enqueue.replace("local replied = remembered()",
				"local replied = (ARGV[3] == '1') and remembered()");
		assertThat(singleOnly).as("the re-send check of enqueue.lua").isNotEqualTo(enqueue);
		return singleOnly;
	}

	/**
	 * An operator's script without its check for a call it remembers, as it was before
	 * that fix.
	 */
	private static String withoutResendCheck(String name) {
		String script = read(QueueScripts.class, name + ".lua");
		String withoutCheck = script.replaceFirst("(?s)\nlocal replied = remembered\\(\\).*?\nend\n", "\n");
		assertThat(withoutCheck).as("the re-send check of " + name + ".lua").isNotEqualTo(script);
		return withoutCheck;
	}

	/**
	 * The fail script counting a failed attempt also when its lease is gone, as a re-sent
	 * or late call finds it.
	 */
	private static String failCountingLostLeases() {
		String fail = read(QueueScripts.class, "fail.lua");
		String counting = fail.replace("if lease ~= ARGV[2] then\n",
				"if lease ~= ARGV[2] then\n\tcount_finished(0, 1, 0, now_millis())\n");
		assertThat(counting).as("the lease check of fail.lua").isNotEqualTo(fail);
		return counting;
	}

	/**
	 * The reserve script taking every entry of the ready list for a job, as it did before
	 * cancel, reschedule and replace left stale entries there.
	 */
	private static String reserveWithoutSkipping() {
		String reserve = read(QueueScripts.class, "reserve.lua");
		String withoutSkipping = reserve.replace("if redis.call('EXISTS', stale) == 0 then", "if true then");
		assertThat(withoutSkipping).as("the skipping of reserve.lua").isNotEqualTo(reserve);
		return withoutSkipping;
	}

	/**
	 * A script with one piece replaced, which must be in it.
	 */
	private static String mutated(Class<?> type, String name, String piece, String replacement) {
		String script = read(type, name);
		String mutated = script.replace(piece, replacement);
		assertThat(mutated).as("%s in %s", piece, name).isNotEqualTo(script);
		return mutated;
	}

	private static String read(Class<?> type, String name) {
		try {
			return new ClassPathResource(name, type).getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
