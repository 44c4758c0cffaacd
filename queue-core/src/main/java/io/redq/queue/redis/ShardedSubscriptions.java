package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

import org.springframework.data.redis.connection.DefaultMessage;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Subscriptions to sharded channels of a Redis Cluster ({@code SSUBSCRIBE}), which Spring
 * Data Redis has no call for (spring-data-redis#3019): a message published with
 * {@code SPUBLISH} stays on the nodes of its channel's slot instead of going to every
 * node. They share one pub/sub connection of the connection factory's Lettuce cluster
 * client, opened at the first subscription. Lettuce subscribes again after a reconnect, a
 * channel whose slot moved to another node, which Redis unsubscribes, is subscribed again
 * at once, and one whose master failed over is subscribed again at the new master when
 * Lettuce learns the new topology; each confirmation is told to the channel's listener.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class ShardedSubscriptions extends RedisClusterPubSubAdapter<String, String> implements AutoCloseable {

	private final RedisClusterClient client;

	private final Map<String, Listener> listeners = new ConcurrentHashMap<>();

	private @Nullable StatefulRedisClusterPubSubConnection<String, String> connection;

	private @Nullable Disposable topologyChanges;

	/**
	 * Whether Redis has sharded pub/sub (7.0 or later), learnt at the first connection.
	 */
	private @Nullable Boolean supported;

	private volatile boolean closed;

	ShardedSubscriptions(LettuceConnectionFactory connectionFactory) {
		this.client = (RedisClusterClient) connectionFactory.getRequiredNativeClient();
	}

	/**
	 * Return whether Redis has sharded pub/sub (7.0 or later), connecting the first time.
	 * @return whether channels can be subscribed to here
	 * @throws RuntimeException when the connection cannot be opened, Redis being down
	 */
	synchronized boolean isSupported() {
		if (this.supported == null) {
			StatefulRedisClusterPubSubConnection<String, String> connection = connection();
			String version = connection.sync()
				.info("server")
				.lines()
				.filter((line) -> line.startsWith("redis_version:"))
				.findFirst()
				.orElse("redis_version:0");
			this.supported = Integer.parseInt(version.substring("redis_version:".length()).split("\\.")[0]) >= 7;
			if (!this.supported) {
				close();
			}
		}
		return this.supported;
	}

	/**
	 * Subscribe a listener to a channel, opening the connection at the first
	 * subscription; the listener hears of the confirmation, and of every one after a
	 * reconnect.
	 * @param <L> the listener's type
	 * @param channel the channel
	 * @param listener the listener of the channel's messages and subscriptions
	 * @throws RuntimeException when the connection cannot be opened, Redis being down
	 */
	synchronized <L extends MessageListener & SubscriptionListener> void subscribe(String channel, L listener) {
		this.listeners.put(channel, new Listener(listener, listener));
		connection().async().ssubscribe(channel);
	}

	private StatefulRedisClusterPubSubConnection<String, String> connection() {
		StatefulRedisClusterPubSubConnection<String, String> connection = this.connection;
		if (connection == null) {
			connection = this.client.connectPubSub(StringCodec.UTF8);
			// the channels' nodes answer on connections of their own
			connection.setNodeMessagePropagation(true);
			connection.addListener(this);
			this.topologyChanges = this.client.getResources()
				.eventBus()
				.get()
				.ofType(ClusterTopologyChangedEvent.class)
				.subscribe(this::topologyChanged);
			this.connection = connection;
		}
		return connection;
	}

	/**
	 * Subscribe again to the channels whose slot another master serves now, as after a
	 * failover, at that master: Lettuce keeps the subscription on the lost master's
	 * connection, where nothing is published any more.
	 */
	private void topologyChanged(ClusterTopologyChangedEvent event) {
		for (String channel : this.listeners.keySet()) {
			int slot = SlotHash.getSlot(channel);
			String master = master(event.after(), slot);
			if (master != null && !master.equals(master(event.before(), slot))) {
				synchronized (this) {
					if (!this.closed) {
						connection().getConnectionAsync(master).thenAccept((node) -> node.async().ssubscribe(channel));
					}
				}
			}
		}
	}

	private static @Nullable String master(List<RedisClusterNode> nodes, int slot) {
		return nodes.stream()
			.filter((node) -> node.hasSlot(slot))
			.map(RedisClusterNode::getNodeId)
			.findFirst()
			.orElse(null);
	}

	@Override
	public void ssubscribed(RedisClusterNode node, String channel, long count) {
		Listener listener = this.listeners.get(channel);
		if (listener != null) {
			listener.subscriptions.onChannelSubscribed(bytes(channel), count);
		}
	}

	@Override
	public void sunsubscribed(RedisClusterNode node, String channel, long count) {
		Listener listener = this.listeners.get(channel);
		if (listener == null) {
			return;
		}
		listener.subscriptions.onChannelUnsubscribed(bytes(channel), count);
		// the channel's slot moved to another node: subscribe there
		synchronized (this) {
			if (!this.closed) {
				connection().async().ssubscribe(channel);
			}
		}
	}

	@Override
	public void smessage(RedisClusterNode node, String channel, String message) {
		Listener listener = this.listeners.get(channel);
		if (listener != null) {
			listener.messages.onMessage(new DefaultMessage(bytes(channel), bytes(message)), null);
		}
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		if (this.topologyChanges != null) {
			this.topologyChanges.dispose();
		}
		if (this.connection != null) {
			this.connection.close();
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private record Listener(MessageListener messages, SubscriptionListener subscriptions) {
	}

}
