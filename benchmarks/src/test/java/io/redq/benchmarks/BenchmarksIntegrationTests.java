package io.redq.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.redq.benchmarks.BenchmarkConfiguration.NoopJobs;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.listener.JobListenerContainer;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Runs every scenario with a few jobs, so that the harness keeps working: each prints a
 * {@code RESULT} line of JSON with its figures.
 *
 * @author Redq team
 */
@WithRedis
class BenchmarksIntegrationTests {

	static Stream<Arguments> scenarios() {
		return Stream.of(Arguments.of("enqueue", List.of("--jobs=200"),
				List.of("singleJobsPerSecond", "bareJobsPerSecond", "singleToBare", "javaLpushJobsPerSecond",
						"asyncJobsPerSecond", "batchJobsPerSecond", "singleRoundTripsPerJob", "bareScriptCallsPerJob",
						"asyncRoundTripsPerJob", "batchRoundTripsPerJob", "batchCommandsPerJob")),
				Arguments.of("transactions", List.of("--jobs=200"),
						List.of("plainJobsPerSecond", "afterCommitJobsPerSecond", "outboxJobsPerSecond",
								"outboxCommitJobsPerSecond")),
				Arguments.of("drain", List.of("--jobs=200"),
						List.of("jobsPerSecond", "roundTripsPerJob", "commandsPerJob", "redisCpuPercent")),
				Arguments.of("e2e", List.of("--jobs=200", "--lpush-requests=2000"),
						List.of("jobsPerSecond", "latencyP50Ms", "latencyP99Ms", "roundTripsPerJob", "commandsPerJob",
								"cpuMicrosPerJob")),
				Arguments.of("e2e-single", List.of("--jobs=200"),
						List.of("jobsPerSecond", "latencyP50Ms", "latencyP99Ms", "roundTripsPerJob")),
				Arguments.of("e2e-async", List.of("--jobs=200"),
						List.of("jobsPerSecond", "latencyP50Ms", "latencyP99Ms", "roundTripsPerJob")),
				Arguments.of("idle-pickup", List.of("--jobs=20", "--gap=5ms"),
						List.of("pickupP50Ms", "pickupP99Ms", "pickupMaxMs", "stallMaxMs", "stallsOver5Ms",
								"roundTripsPerJob", "splitSamples", "splitToEventLoopP50Ms", "splitToScriptP50Ms",
								"splitToReservationP50Ms", "splitToReplyP50Ms", "splitToHandlerP99Ms",
								"splitDispatchReplyP50Ms", "handOffIdleP50Ms", "handOffNextP99Ms", "pingIdleP50Ms",
								"pingNextP99Ms")),
				Arguments.of("lone-dispatch", List.of("--jobs=200"),
						List.of("dispatchP50Ms", "dispatchP99Ms", "dispatchMaxMs", "roundTripsPerJob")),
				Arguments.of("timers", List.of("--jobs=200", "--spread=1s", "--lead=500ms"),
						List.of("latenessP50Ms", "latenessP99Ms", "latenessMaxMs", "stallMaxMs", "stallsOver5Ms",
								"commandsPerJob")),
				Arguments.of("memory", List.of("--jobs=200"),
						List.of("jobBytesEach", "jobKeyBytesEach", "timerBytesEach", "timerKeyBytesEach")),
				Arguments.of("idle-cost", List.of("--queues=2", "--duration=1s"),
						List.of("commandsPerSecond", "roundTripsPerSecond", "commandCallsPerSecond")),
				Arguments.of("soak", List.of("--jobs=100", "--duration=500ms"), List.of("jobsPerSecond", "minutes")),
				Arguments.of("waiting", List.of("--jobs=200", "--duration=500ms", "--drain=500ms"),
						List.of("waitingRedisCpuPercent", "waitingScriptCallsPerSecond", "drainJobsPerSecond",
								"drainScriptCallsPerJob", "drainRoundTripsPerJob", "unlimitedDrainJobsPerSecond",
								"unlimitedDrainCommandsPerJob", "drainCommandMicrosPerJob",
								"unlimitedDrainCommandMicrosPerJob", "drainToUnlimited", "warmupRounds")),
				Arguments.of("removal", List.of("--jobs=2000", "--lpush-requests=0"),
						List.of("backlog2000CancelMicros", "backlog2000RescheduleMicros", "backlog2000ReplaceMicros")),
				Arguments.of("resend-memory", List.of("--jobs=2000", "--lpush-requests=0"),
						List.of("dispatchesPerSecond", "resendKeysMax", "resendBytesMax", "keyPerCallBytes")),
				Arguments.of("results", List.of("--jobs=50", "--hold=5ms"),
						List.of("wakeUpP50Ms", "wakeUpP99Ms", "bytesPerResult", "usedMemoryPerResult")),
				Arguments.of("batch", List.of("--jobs=300"),
						List.of("dispatchAll1JobsPerSecond", "batch1JobsPerSecond", "batch1BytesEach",
								"batch1PendingBytesEach", "batch1LinkBytesEach", "batch2JobsPerSecond")),
				Arguments.of("search", List.of("--jobs=2000", "--rounds=1"),
						List.of("searchIdMissingMaxMs", "searchIdPartMaxMs", "searchJobMaxMs", "searchErrorMaxMs",
								"deadFilterMaxMs", "readyPageMaxMs", "queueListMaxMs", "pingMaxMs",
								"hscanCallsPerSearch", "searchIdPartFound")));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("scenarios")
	void printsResultLine(String scenario, List<String> options, List<String> fields, RedisServer redis)
			throws Exception {
		List<String> args = new ArrayList<>(List.of("--scenario=" + scenario, "--redis=" + redis.url()));
		if (options.stream().noneMatch((option) -> option.startsWith("--lpush-requests="))) {
			args.add("--lpush-requests=0");
		}
		args.addAll(options);
		ByteArrayOutputStream output = new ByteArrayOutputStream();
		Benchmarks.run(new PrintStream(output, true, StandardCharsets.UTF_8), args.toArray(String[]::new));
		List<String> lines = output.toString(StandardCharsets.UTF_8)
			.lines()
			.filter((line) -> line.startsWith("RESULT "))
			.toList();
		assertThat(lines).hasSize(1);
		JsonNode result = JsonMapper.shared().readTree(lines.get(0).substring("RESULT ".length()));
		assertThat(result.get("scenario").asString()).isEqualTo(scenario);
		assertThat(result.get("cpus").asInt()).isPositive();
		for (String field : fields) {
			assertThat(result.has(field)).as(field).isTrue();
			if (result.get(field).isNumber()) {
				assertThat(result.get(field).asDouble()).as(field).isNotNegative();
			}
		}
		if (result.has("splitSamples")) {
			// every pickup is found in MONITOR's lines and Lettuce's replies
			assertThat(result.get("splitSamples").asInt()).isEqualTo(result.get("jobs").asInt());
		}
		if (result.has("jobsPerSecond")) {
			assertThat(result.get("jobsPerSecond").asDouble()).isPositive();
		}
		if (args.contains("--lpush-requests=2000") && result.has("lpushPerSecond")) {
			assertThat(result.get("lpushRatios").get("jobsPerSecond").asDouble()).isPositive();
		}
	}

	@Test
	void aScenarioWithTheNoopJobRunsNoOtherQueue(RedisServer redis) throws Exception {
		Harness harness = new Harness(Options.parse(), new RedisAdmin(redis),
				new PrintStream(OutputStream.nullOutputStream()));
		try (ConfigurableApplicationContext context = harness.start(NoopJobs.class)) {
			assertThat(context.getBean(JobListenerRegistry.class).getListenerContainers())
				.extracting(JobListenerContainer::getQueue)
				.containsExactly(BenchmarkConfiguration.QUEUE);
		}
	}

	@Test
	void rejectsUnknownScenario() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Benchmarks.run(new PrintStream(new ByteArrayOutputStream()), "--scenario=nope"))
			.withMessageContaining("e2e");
	}

}
