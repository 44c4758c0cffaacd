package io.redq.queue.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of {@code redis-server} processes on free ports of {@code 127.0.0.1}:
 * masters that share the 16,384 slots in even ranges, each with the same number of
 * replicas.
 * <p>
 * Every node is a local {@link RedisServer}, so a test can {@linkplain RedisServer#kill()
 * kill} or {@linkplain RedisServer#pause() pause} one. {@link #close()} stops them all.
 * When there is no {@code redis-server} on the {@code PATH}, {@link #start} skips the
 * calling test, or fails it under the environment variable {@code CI=true}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class RedisCluster implements AutoCloseable {

	static final int SLOTS = 16384;

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private final List<RedisServer> masters = new ArrayList<>();

	private final List<RedisServer> replicas = new ArrayList<>();

	/**
	 * Node ids by port: a node keeps its id in {@code nodes.conf}, also when it is down.
	 */
	private final Map<Integer, String> ids = new HashMap<>();

	private RedisCluster() {
	}

	/**
	 * Start a cluster and wait until every node sees it in state {@code ok}, with every
	 * replica in sync with its master.
	 * @param masters how many masters own slots
	 * @param replicasPerMaster how many replicas each master gets
	 * @param arguments further {@code redis-server} arguments of every node, e.g.
	 * {@code "--cluster-node-timeout", "1000"} for a failover within seconds
	 * @return the cluster, to be closed by the caller
	 */
	public static RedisCluster start(int masters, int replicasPerMaster, String... arguments) {
		RedisCluster cluster = new RedisCluster();
		try {
			cluster.form(masters, replicasPerMaster, arguments);
			return cluster;
		}
		catch (RedisServer.UnavailableException ex) {
			cluster.close();
			throw RedisServerExtension.unavailable(ex, RedisServerExtension.isCi());
		}
		catch (RuntimeException ex) {
			cluster.close();
			throw ex;
		}
	}

	/**
	 * Start three masters, each with one replica, and a node timeout of one second
	 * ({@code --cluster-node-timeout 1000}), so that a master that is killed or paused
	 * fails over to its replica within seconds.
	 * @return the cluster, to be closed by the caller
	 */
	public static RedisCluster startWithFailover() {
		return start(3, 1, "--cluster-node-timeout", "1000");
	}

	private void form(int masters, int replicasPerMaster, String... arguments) {
		for (int i = 0; i < masters; i++) {
			this.masters.add(RedisServer.local().cluster().arguments(arguments).start());
		}
		for (int i = 0; i < masters * replicasPerMaster; i++) {
			this.replicas.add(RedisServer.local().cluster().arguments(arguments).start());
		}
		for (int i = 0; i < masters; i++) {
			// ADDSLOTS rather than ADDSLOTSRANGE, which Redis 6.2 lacks
			List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
			for (int slot = i * SLOTS / masters; slot < (i + 1) * SLOTS / masters; slot++) {
				command.add(Integer.toString(slot));
			}
			this.masters.get(i).command(command.toArray(String[]::new));
		}
		List<RedisServer> nodes = nodes();
		nodes.forEach((node) -> this.ids.put(node.port(), node.command("CLUSTER", "MYID")));
		RedisServer first = this.masters.get(0);
		// the bus port is the default, port + 10000 (see RedisProcess), as Redis 6.2
		// knows
		for (RedisServer node : nodes.subList(1, nodes.size())) {
			node.command("CLUSTER", "MEET", RedisProcess.LOOPBACK, Integer.toString(first.port()));
		}
		await("every node knows every other", () -> nodes.stream().allMatch((node) -> {
			String known = node.command("CLUSTER", "NODES");
			return this.ids.values().stream().allMatch(known::contains);
		}));
		for (int i = 0; i < this.replicas.size(); i++) {
			this.replicas.get(i).command("CLUSTER", "REPLICATE", id(this.masters.get(i % masters)));
		}
		await("replicas in sync and the cluster ok",
				() -> this.replicas.stream()
					.allMatch((replica) -> replica.command("INFO", "replication").contains("master_link_status:up"))
						&& nodes.stream()
							.allMatch((node) -> isOk(node) && this.masters.stream()
								.allMatch((master) -> replicaIds(node, master).size() == replicasPerMaster)));
	}

	/**
	 * Every node: the masters first, then the replicas, in start order.
	 * @return the nodes
	 */
	public List<RedisServer> nodes() {
		List<RedisServer> nodes = new ArrayList<>(this.masters);
		nodes.addAll(this.replicas);
		return nodes;
	}

	/**
	 * The nodes started as masters, in slot order.
	 * @return the masters
	 */
	public List<RedisServer> masters() {
		return List.copyOf(this.masters);
	}

	/**
	 * The node that is master of a key's slot now, as a live node sees the cluster.
	 * @param key the key, e.g. {@code "{queue}"}
	 * @return the master
	 * @throws IllegalStateException when no master serves the slot, as during a failover
	 */
	public RedisServer masterOf(String key) {
		RedisServer live = live();
		long slot = Long.parseLong(live.command("CLUSTER", "KEYSLOT", key));
		for (String line : live.command("CLUSTER", "NODES").split("\n")) {
			String[] fields = line.split(" ");
			if (fields[2].contains("master") && !fields[2].contains("fail")) {
				for (int i = 8; i < fields.length; i++) {
					String[] range = fields[i].split("-");
					if (!range[0].startsWith("[") && Long.parseLong(range[0]) <= slot
							&& slot <= Long.parseLong(range[range.length - 1])) {
						return node(fields[1]);
					}
				}
			}
		}
		throw new IllegalStateException("No master serves slot " + slot + " of " + key);
	}

	/**
	 * The replicas of a master now, as a live node sees the cluster.
	 * @param master the master
	 * @return its replicas
	 */
	public List<RedisServer> replicasOf(RedisServer master) {
		return replicaIds(live(), master).values().stream().map(this::node).toList();
	}

	/**
	 * Whether every node that runs sees the cluster in state {@code ok}.
	 * @return {@code true} when the cluster serves every slot
	 */
	public boolean isOk() {
		return nodes().stream().filter(RedisCluster::answers).allMatch(RedisCluster::isOk);
	}

	/**
	 * The Spring Boot property that points Spring Data Redis at the masters.
	 * @return {@code spring.data.redis.cluster.nodes=127.0.0.1:port,...}
	 */
	public String[] springProperties() {
		return new String[] { "spring.data.redis.cluster.nodes=" + this.masters.stream()
			.map((master) -> master.host() + ":" + master.port())
			.collect(Collectors.joining(",")) };
	}

	/** Stop every node. */
	@Override
	public void close() {
		nodes().forEach(RedisServer::close);
	}

	private RedisServer live() {
		return nodes().stream()
			.filter(RedisCluster::answers)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No node of the cluster answers"));
	}

	/** The node whose address is {@code ip:port@busport} in {@code CLUSTER NODES}. */
	private RedisServer node(String address) {
		int port = Integer.parseInt(address.substring(address.indexOf(':') + 1, address.indexOf('@')));
		return nodes().stream()
			.filter((node) -> node.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No node on port " + port));
	}

	/** Replica addresses by node id. */
	private Map<String, String> replicaIds(RedisServer node, RedisServer master) {
		String replicas = node.command("CLUSTER", "REPLICAS", id(master));
		return replicas.lines()
			.filter((line) -> !line.isEmpty())
			.map((line) -> line.split(" "))
			.collect(Collectors.toMap((fields) -> fields[0], (fields) -> fields[1]));
	}

	private String id(RedisServer node) {
		return this.ids.get(node.port());
	}

	private static boolean isOk(RedisServer node) {
		return node.command("CLUSTER", "INFO").contains("cluster_state:ok");
	}

	private static boolean answers(RedisServer node) {
		try {
			return "PONG".equals(node.command("PING"));
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	static void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + DEADLINE.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Not within " + DEADLINE.toSeconds() + "s: " + what);
			}
			RedisProcess.sleep(50);
		}
	}

}
