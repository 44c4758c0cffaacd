package io.redq.queue.cluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Assumptions;

import org.springframework.util.FileSystemUtils;

import static org.awaitility.Awaitility.await;

/**
 * Redis Cluster nodes that a test starts as {@code redis-server} processes on 127.0.0.1
 * free ports, each in a temporary directory, and stops with {@link #close()}.
 *
 * @author Redq team
 */
final class LocalRedisCluster implements AutoCloseable {

	/** How long the cluster may take to form. */
	static final Duration DEADLINE = Duration.ofSeconds(20);

	private final Path directory;

	private final List<Process> nodes = new ArrayList<>();

	private final List<Integer> ports = new ArrayList<>();

	private LocalRedisCluster(Path directory) {
		this.directory = directory;
	}

	/**
	 * Start cluster-enabled nodes and give the first {@code masters} of them the 16,384
	 * slots in even ranges; the others join without slots. Skips the test when
	 * {@code redis-server} or {@code redis-cli} is missing.
	 * @param count how many nodes to start
	 * @param masters how many of them own slots
	 * @param options further {@code redis-server} options of every node
	 * @return the cluster, in state ok
	 * @throws IOException when a node cannot start
	 */
	static LocalRedisCluster start(int count, int masters, String... options) throws IOException {
		Assumptions.assumeTrue(onPath("redis-server") && onPath("redis-cli"),
				"redis-server and redis-cli are not on the PATH (apt-get install -y redis-server)");
		LocalRedisCluster cluster = new LocalRedisCluster(Files.createTempDirectory("redq-cluster"));
		for (int i = 0; i < count; i++) {
			cluster.startNode(options);
		}
		List<Integer> ports = cluster.ports;
		await().atMost(DEADLINE).until(() -> ports.stream().allMatch((port) -> "PONG".equals(cli(port, "PING"))));
		for (int i = 0; i < masters; i++) {
			cli(ports.get(i), "CLUSTER", "ADDSLOTSRANGE", Integer.toString(firstSlot(i, masters)),
					Integer.toString(firstSlot(i + 1, masters) - 1));
		}
		for (int i = 1; i < count; i++) {
			cli(ports.get(i), "CLUSTER", "MEET", "127.0.0.1", Integer.toString(ports.get(0)));
		}
		await().atMost(DEADLINE)
			.until(() -> ports.stream().allMatch((port) -> cli(port, "CLUSTER", "INFO").contains("cluster_state:ok")));
		return cluster;
	}

	private static int firstSlot(int master, int masters) {
		return (master == masters) ? 16384 : master * (16384 / masters);
	}

	private void startNode(String... options) throws IOException {
		int port = freePort();
		Path dir = Files.createDirectories(this.directory.resolve(Integer.toString(port)));
		List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind",
				"127.0.0.1", "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--save", "",
				"--appendonly", "no", "--dir", dir.toString()));
		command.addAll(List.of(options));
		this.nodes.add(new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(dir.resolve("log").toFile())
			.start());
		this.ports.add(port);
	}

	/**
	 * Return the port of each node, in the order they started.
	 * @return the ports
	 */
	List<Integer> ports() {
		return this.ports;
	}

	/**
	 * Return the {@code spring.data.redis.cluster.nodes} property naming the given nodes.
	 * @param count how many nodes, from the first
	 * @return the property as {@code name=value}
	 */
	String nodesProperty(int count) {
		return "spring.data.redis.cluster.nodes=" + this.ports.subList(0, count)
			.stream()
			.map((port) -> "127.0.0.1:" + port)
			.collect(Collectors.joining(","));
	}

	/**
	 * Kill a node at once, as a crash would.
	 * @param index the node's index in start order
	 * @throws InterruptedException when interrupted while the process ends
	 */
	void kill(int index) throws InterruptedException {
		this.nodes.get(index).destroyForcibly().waitFor();
	}

	@Override
	public void close() throws Exception {
		for (Process node : this.nodes) {
			node.destroyForcibly().waitFor();
		}
		FileSystemUtils.deleteRecursively(this.directory);
	}

	/**
	 * Run a {@code redis-cli} command against a node.
	 * @param port the node's port
	 * @param command the command and its arguments
	 * @return the output, trimmed
	 */
	static String cli(int port, String... command) {
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
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
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

}
