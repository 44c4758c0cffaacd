package io.redq.benchmarks;

import java.time.Duration;
import java.time.Instant;

import io.redq.benchmarks.BenchmarkConfiguration.NoopJobs;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code timers}: N delayed jobs with caller-chosen ids ({@code REPLACE}, as for a timer
 * that may move), due evenly over {@code --spread} starting {@code --lead} after
 * dispatching starts. Lateness is the start of the handler less the job's
 * {@code availableAt}.
 *
 * @author Redq team
 * @since 0.1.0
 */
class TimersScenario implements Scenario {

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(100_000);
		Duration spread = harness.options().duration("spread", Duration.ofSeconds(10));
		Duration lead = harness.options().duration("lead", Duration.ofSeconds(5));
		try (ConfigurableApplicationContext context = harness.start(NoopJobs.class)) {
			harness.describe(context, result);
			harness.warmUp(result, () -> run(harness, context, "warmup-", harness.options().warmup(jobs),
					spread.dividedBy(10), lead, null));
			result.put("jobs", jobs);
			result.put("spreadSeconds", spread.toMillis() / 1000.0);
			result.put("leadSeconds", lead.toMillis() / 1000.0);
			run(harness, context, "timer-", jobs, spread, lead, result);
		}
	}

	private void run(Harness harness, ConfigurableApplicationContext context, String idPrefix, int jobs,
			Duration spread, Duration lead, Result result) throws Exception {
		Recorder recorder = context.getBean(Recorder.class);
		JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
		recorder.reset(jobs, true);
		Phase phase = Phase.start(harness, result, jobs + " timers");
		Instant first = Instant.now().plus(lead);
		harness.dispatchBatches(dispatcher, jobs,
				(i) -> JobRequest.of(BenchmarkConfiguration.JOB, Integer.toString(i))
					.id(idPrefix + i, DuplicatePolicy.REPLACE)
					.at(first.plusNanos(spread.toNanos() / jobs * i))
					.build());
		Duration dispatching = Duration.between(first.minus(lead), Instant.now());
		// from the end of dispatching: the stalls the timers could meet
		StallMeter stalls = (result != null) ? StallMeter.start() : null;
		if (dispatching.compareTo(lead) > 0) {
			harness.log("Dispatching took " + dispatching + ", longer than the lead of " + lead
					+ ": early timers became due while others were dispatched. Raise --lead");
		}
		long end = harness.awaitCompleted(recorder, jobs);
		if (result != null) {
			stalls.end(result);
			result.put("dispatchSeconds", dispatching.toMillis() / 1000.0);
			result.putLatencies("lateness", recorder.latencies());
			phase.end(result, "", jobs, end);
			// the throughput of this scenario is set by the spread: not a figure
			// to compare
			result.values().remove("jobsPerSecond");
		}
	}

}
