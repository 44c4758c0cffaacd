package io.redq.queue.autoconfigure;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConverters;

/**
 * Moves the connections of a Sentinel-managed {@link LettuceConnectionFactory} to the new
 * master as soon as a Sentinel announces a failover ({@code +switch-master}). Lettuce
 * otherwise stays on the old master until the Sentinels demote it, up to 10 s after a
 * {@code SENTINEL FAILOVER}, and whatever the old master acknowledges meanwhile is lost
 * on its demotion; a master that stopped answering holds the calls sent to it until the
 * command timeout.
 * <p>
 * Closes every network channel of the client to the old master: Lettuce reconnects each
 * at the master that a Sentinel names now, and sends the commands that had no answer
 * again there (Redq's calls change nothing the second time). Subscribes on every
 * Sentinel, as each announces the switch when it learns it, and closes the channels that
 * reconnected to the old master meanwhile again on each announcement. Started after the
 * connection factory, stopped before.
 * <p>
 * Lettuce's {@code MasterReplica} follows the Sentinels too, but only for its own
 * connections (Spring Data Redis uses it with {@code read-from} alone), and reads the
 * topology again 5 s after the first message of a failover, {@code +elected-leader},
 * ignoring the {@code +switch-master} that follows within that time.
 *
 * @author Redq team
 */
class SentinelMasterSwitchListener implements SmartLifecycle {

	static final String CHANNEL = "+switch-master";

	private static final Log logger = LogFactory.getLog(SentinelMasterSwitchListener.class);

	private final LettuceConnectionFactory connectionFactory;

	private final Channels channels;

	private final List<StatefulRedisPubSubConnection<String, String>> subscriptions = new ArrayList<>();

	private volatile boolean running;

	SentinelMasterSwitchListener(LettuceConnectionFactory connectionFactory, Channels channels) {
		this.connectionFactory = connectionFactory;
		this.channels = channels;
	}

	@Override
	public void start() {
		this.running = true;
		RedisSentinelConfiguration configuration = this.connectionFactory.getSentinelConfiguration();
		if (configuration == null || configuration.getMaster() == null) {
			// an application's own factory on a standalone Redis or a cluster
			return;
		}
		RedisClient client = (RedisClient) this.connectionFactory.getRequiredNativeClient();
		if (client.getResources().nettyCustomizer() != this.channels) {
			logger.warn("The Lettuce client resources are the application's own, or its NettyCustomizer replaced "
					+ "Redq's: after a Sentinel failover, the application's connections stay on the old master "
					+ "until the Sentinels demote it, and the writes it takes meanwhile are lost. Let Spring Boot "
					+ "build the client resources and compose NettyCustomizers in a ClientResourcesBuilderCustomizer");
			return;
		}
		String prefix = configuration.getMaster().getName() + " ";
		for (RedisURI sentinel : LettuceConverters.sentinelConfigurationToRedisURI(configuration).getSentinels()) {
			try {
				StatefulRedisPubSubConnection<String, String> subscription = client.connectPubSub(StringCodec.UTF8,
						sentinel);
				// closed on stop, also when the subscription below fails
				this.subscriptions.add(subscription);
				subscription.addListener(new RedisPubSubAdapter<>() {

					@Override
					public void message(String channel, String message) {
						if (message.startsWith(prefix)) {
							switched(message);
						}
					}

				});
				subscription.sync().subscribe(CHANNEL);
			}
			catch (RedisException ex) {
				logger.warn("Could not subscribe to " + CHANNEL + " on the Sentinel at " + sentinel.getHost() + ":"
						+ sentinel.getPort() + " (" + ex.getMessage() + "): Redq moves to a new master at once only "
						+ "when another Sentinel announces it, else once the old master is demoted");
			}
		}
	}

	private void switched(String message) {
		// "<master name> <old ip> <old port> <new ip> <new port>"
		String[] parts = message.split(" ");
		int closed = this.channels.closeTo(parts[1], Integer.parseInt(parts[2]));
		if (closed > 0) {
			logger.info("A Sentinel announced a new Redis master (" + message + "): reconnecting " + closed
					+ " connection(s) to it");
		}
	}

	@Override
	public void stop() {
		this.subscriptions.forEach(StatefulRedisPubSubConnection::close);
		this.subscriptions.clear();
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * The open network channels of the Lettuce clients built on the client resources that
	 * this customizes.
	 */
	static class Channels implements NettyCustomizer {

		private final Set<Channel> open = ConcurrentHashMap.newKeySet();

		@Override
		public void afterChannelInitialized(Channel channel) {
			this.open.add(channel);
			channel.closeFuture().addListener((future) -> this.open.remove(channel));
		}

		/**
		 * Close the channels connected to a server.
		 * @param host its address, as a Sentinel names it
		 * @param port its port
		 * @return how many were closed
		 */
		int closeTo(String host, int port) {
			int closed = 0;
			for (Channel channel : this.open) {
				if (channel.remoteAddress() instanceof InetSocketAddress address && address.getPort() == port && (host
					.equals(address.getHostString())
						|| (address.getAddress() != null && host.equals(address.getAddress().getHostAddress())))) {
					channel.close();
					closed++;
				}
			}
			return closed;
		}

	}

}
