package io.redq.queue.cluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.listener.JobContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs queues on a three-node Redis Cluster started by the test on 127.0.0.1.
 *
 * @author Redq team
 */
class RedisClusterIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(20);

	private static final List<Process> nodes = new ArrayList<>();

	private static final List<Integer> ports = new ArrayList<>();

	private static Path directory;

	@BeforeAll
	static void startCluster() throws Exception {
		Assumptions.assumeTrue(onPath("redis-server") && onPath("redis-cli"),
				"redis-server and redis-cli are not on the PATH (apt-get install -y redis-server)");
		directory = Files.createTempDirectory("redq-cluster");
		for (int i = 0; i < 3; i++) {
			int port = freePort();
			Path dir = Files.createDirectories(directory.resolve(Integer.toString(port)));
			nodes.add(new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
					"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--save", "", "--appendonly",
					"no", "--dir", dir.toString())
				.redirectErrorStream(true)
				.redirectOutput(dir.resolve("log").toFile())
				.start());
			ports.add(port);
		}
		await().atMost(DEADLINE).until(() -> ports.stream().allMatch((port) -> "PONG".equals(cli(port, "PING"))));
		int slotsPerNode = 16384 / 3;
		for (int i = 0; i < 3; i++) {
			int first = i * slotsPerNode;
			int last = (i == 2) ? 16383 : first + slotsPerNode - 1;
			cli(ports.get(i), "CLUSTER", "ADDSLOTSRANGE", Integer.toString(first), Integer.toString(last));
			if (i > 0) {
				cli(ports.get(i), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(ports.get(0)));
			}
		}
		await().atMost(DEADLINE)
			.until(() -> ports.stream().allMatch((port) -> cli(port, "CLUSTER", "INFO").contains("cluster_state:ok")));
	}

	@AfterAll
	static void stopCluster() throws Exception {
		for (Process node : nodes) {
			node.destroyForcibly().waitFor();
		}
		if (directory != null) {
			FileSystemUtils.deleteRecursively(directory);
		}
	}

	@Test
	void queuesOnDifferentSlotsRunTheirJobs() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					JobQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:" + ports.get(0) + ",127.0.0.1:"
					+ ports.get(1) + ",127.0.0.1:" + ports.get(2))
			.withUserConfiguration(ClusterJobs.class)
			.run((context) -> {
				JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
				List<String> ids = new ArrayList<>();
				for (int i = 0; i < 30; i++) {
					ids.add(dispatcher.dispatch(
							JobRequest.of("cluster-job-" + (i % 3), i).delay(Duration.ofMillis(i % 2 * 100)).build()));
				}
				await().atMost(DEADLINE).until(() -> ClusterJobs.handled.size() == ids.size());
				assertThat(ClusterJobs.handled).containsExactlyInAnyOrderElementsOf(ids);
				JobQueueOperations operations = context.getBean(JobQueueOperations.class);
				for (int q = 0; q < 3; q++) {
					String queue = "q" + q;
					await().atMost(DEADLINE).until(() -> operations.stats(queue).equals(new QueueStats(0, 0, 0, 0)));
				}
			});
	}

	private static String cli(int port, String... command) {
		List<String> args = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
		args.addAll(List.of(command));
		try {
			Process process = new ProcessBuilder(args).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes()).trim();
			process.waitFor();
			return output;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static boolean onPath(String command) {
		for (String dir : System.getenv("PATH").split(File.pathSeparator)) {
			if (Files.isExecutable(Path.of(dir, command))) {
				return true;
			}
		}
		return false;
	}

	@Configuration(proxyBeanMethods = false)
	static class ClusterJobs {

		static final ConcurrentLinkedQueue<String> handled = new ConcurrentLinkedQueue<>();

		@QueuedJob(name = "cluster-job-0", queue = "q0")
		void q0(int i, JobContext context) {
			handled.add(context.getId());
		}

		@QueuedJob(name = "cluster-job-1", queue = "q1")
		void q1(int i, JobContext context) {
			handled.add(context.getId());
		}

		@QueuedJob(name = "cluster-job-2", queue = "q2")
		void q2(int i, JobContext context) {
			handled.add(context.getId());
		}

	}

}
