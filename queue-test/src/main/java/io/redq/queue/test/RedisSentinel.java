package io.redq.queue.test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Redis Sentinel group of {@code redis-server} processes on free ports of
 * {@code 127.0.0.1}: a master, a replica and three Sentinels that monitor the master
 * under {@link #MASTER_NAME} with a quorum of two.
 * <p>
 * The Sentinels consider the master down after one second without an answer, so
 * {@linkplain RedisServer#kill() killing} it makes them promote the replica within
 * seconds. {@link #close()} stops every process. When there is no {@code redis-server} on
 * the {@code PATH}, {@link #start} skips the calling test, or fails it under the
 * environment variable {@code CI=true}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class RedisSentinel implements AutoCloseable {

	/** The name under which the Sentinels monitor the master. */
	public static final String MASTER_NAME = "redq";

	private static final int SENTINELS = 3;

	private final List<RedisServer> servers = new ArrayList<>();

	private final List<RedisServer> sentinels = new ArrayList<>();

	private RedisSentinel() {
	}

	/**
	 * Start a master, its replica and three Sentinels, and wait until every Sentinel
	 * knows the replica and the other Sentinels, so that a failover can start at once.
	 * @param arguments further {@code redis-server} arguments of the master and the
	 * replica
	 * @return the group, to be closed by the caller
	 */
	public static RedisSentinel start(String... arguments) {
		RedisSentinel group = new RedisSentinel();
		try {
			group.form(arguments);
			return group;
		}
		catch (RedisServer.UnavailableException ex) {
			group.close();
			throw RedisServerExtension.unavailable(ex, RedisServerExtension.isCi());
		}
		catch (RuntimeException ex) {
			group.close();
			throw ex;
		}
	}

	private void form(String... arguments) {
		RedisServer master = RedisServer.local().arguments(arguments).start();
		this.servers.add(master);
		RedisServer replica = RedisServer.local()
			.arguments(arguments)
			.arguments("--replicaof", master.host(), Integer.toString(master.port()))
			.start();
		this.servers.add(replica);
		RedisCluster.await("the replica in sync",
				() -> replica.command("INFO", "replication").contains("master_link_status:up"));
		for (int i = 0; i < SENTINELS; i++) {
			this.sentinels.add(RedisServer.local()
				.sentinel("sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 2",
						"sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
						"sentinel failover-timeout " + MASTER_NAME + " 10000")
				.start());
		}
		RedisCluster.await("every Sentinel knows the replica and the other Sentinels",
				() -> this.sentinels.stream().allMatch((sentinel) -> {
					Map<String, String> state = fields(sentinel.command("SENTINEL", "MASTER", MASTER_NAME));
					return "1".equals(state.get("num-slaves"))
							&& Integer.toString(SENTINELS - 1).equals(state.get("num-other-sentinels"));
				}));
	}

	/**
	 * The name under which the Sentinels monitor the master.
	 * @return {@link #MASTER_NAME}
	 */
	public String masterName() {
		return MASTER_NAME;
	}

	/**
	 * The server started as the master.
	 * @return the first master
	 */
	public RedisServer master() {
		return this.servers.get(0);
	}

	/**
	 * The server started as the replica of {@link #master()}.
	 * @return the replica
	 */
	public RedisServer replica() {
		return this.servers.get(1);
	}

	/**
	 * The Sentinels.
	 * @return the three Sentinels
	 */
	public List<RedisServer> sentinels() {
		return List.copyOf(this.sentinels);
	}

	/**
	 * The ports of the Sentinels.
	 * @return the ports
	 */
	public List<Integer> sentinelPorts() {
		return this.sentinels.stream().map(RedisServer::port).toList();
	}

	/**
	 * The server that a Sentinel names as master now.
	 * @param sentinel the Sentinel to ask
	 * @return the master or the replica, whichever the Sentinel names
	 */
	public RedisServer currentMaster(RedisServer sentinel) {
		String address = sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
		int port = Integer.parseInt(address.substring(address.indexOf('\n') + 1));
		return this.servers.stream()
			.filter((server) -> server.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("Sentinel names an unknown master: " + address));
	}

	/**
	 * Ask a Sentinel to fail the current master over ({@code SENTINEL FAILOVER}), and
	 * wait until every Sentinel names the other server as master. The Sentinels turn the
	 * old master into a replica of the new one.
	 * @return the new master
	 */
	public RedisServer failOver() {
		RedisServer sentinel = this.sentinels.get(0);
		RedisServer master = currentMaster(sentinel);
		RedisServer promoted = this.servers.stream().filter((server) -> server != master).findFirst().orElseThrow();
		sentinel.command("SENTINEL", "FAILOVER", MASTER_NAME);
		RedisCluster.await("every Sentinel naming " + promoted + " as master",
				() -> this.sentinels.stream().allMatch((each) -> currentMaster(each) == promoted));
		return promoted;
	}

	/**
	 * Spring Boot properties that point Spring Data Redis at the Sentinels.
	 * @return {@code spring.data.redis.sentinel.master=...} and
	 * {@code spring.data.redis.sentinel.nodes=...}
	 */
	public String[] springProperties() {
		return new String[] { "spring.data.redis.sentinel.master=" + MASTER_NAME,
				"spring.data.redis.sentinel.nodes=" + this.sentinels.stream()
					.map((sentinel) -> sentinel.host() + ":" + sentinel.port())
					.collect(Collectors.joining(",")) };
	}

	/** Stop every process. */
	@Override
	public void close() {
		this.sentinels.forEach(RedisServer::close);
		this.servers.forEach(RedisServer::close);
	}

	/** A flat array reply of names and values as a map. */
	private static Map<String, String> fields(String reply) {
		String[] lines = reply.split("\n");
		Map<String, String> fields = new HashMap<>();
		for (int i = 0; i + 1 < lines.length; i += 2) {
			fields.put(lines[i], lines[i + 1]);
		}
		return fields;
	}

}
