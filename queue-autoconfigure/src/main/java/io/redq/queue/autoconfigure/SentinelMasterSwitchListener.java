package io.redq.queue.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConverters;

/**
 * Moves the shared connection of a Sentinel-managed {@link LettuceConnectionFactory} to
 * the new master as soon as a Sentinel announces a failover ({@code +switch-master}).
 * Lettuce otherwise stays on the old master until the Sentinels demote it, up to 10 s
 * after a {@code SENTINEL FAILOVER}, and whatever the old master acknowledges meanwhile
 * is lost on its demotion.
 * <p>
 * Subscribes on every Sentinel, so that the first to announce a switch moves the
 * connection, and the others, announcing the same switch as they learn it, do not close
 * it again: closing the shared connection fails the calls in flight on it. Lettuce opens
 * the next connection at the master that a Sentinel names, which the Sentinels learn from
 * each other within milliseconds of the promotion. Started after the connection factory,
 * stopped before.
 *
 * @author Redq team
 */
class SentinelMasterSwitchListener implements SmartLifecycle {

	static final String CHANNEL = "+switch-master";

	private static final Log logger = LogFactory.getLog(SentinelMasterSwitchListener.class);

	private final LettuceConnectionFactory connectionFactory;

	private final List<StatefulRedisPubSubConnection<String, String>> subscriptions = new ArrayList<>();

	private final AtomicReference<String> lastSwitch = new AtomicReference<>();

	private volatile boolean running;

	SentinelMasterSwitchListener(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public void start() {
		RedisSentinelConfiguration configuration = this.connectionFactory.getSentinelConfiguration();
		if (configuration == null || configuration.getMaster() == null) {
			// an application's own factory on a standalone Redis or a cluster
			return;
		}
		String prefix = configuration.getMaster().getName() + " ";
		RedisClient client = (RedisClient) this.connectionFactory.getRequiredNativeClient();
		for (RedisURI sentinel : LettuceConverters.sentinelConfigurationToRedisURI(configuration).getSentinels()) {
			try {
				StatefulRedisPubSubConnection<String, String> subscription = client.connectPubSub(StringCodec.UTF8,
						sentinel);
				subscription.addListener(new RedisPubSubAdapter<>() {

					@Override
					public void message(String channel, String message) {
						// "<master name> <old ip> <old port> <new ip> <new port>"
						if (message.startsWith(prefix)) {
							switched(client, message);
						}
					}

				});
				subscription.sync().subscribe(CHANNEL);
				this.subscriptions.add(subscription);
			}
			catch (RedisException ex) {
				logger.warn("Could not subscribe to " + CHANNEL + " on the Sentinel at " + sentinel.getHost() + ":"
						+ sentinel.getPort() + " (" + ex.getMessage() + "): Redq moves to a new master at once only "
						+ "when another Sentinel announces it, else once the old master is demoted");
			}
		}
		this.running = true;
	}

	private void switched(RedisClient client, String message) {
		String last = this.lastSwitch.get();
		if (message.equals(last) || !this.lastSwitch.compareAndSet(last, message)) {
			// another Sentinel announced this switch first
			return;
		}
		logger.info("A Sentinel announced a new Redis master (" + message + "): reconnecting to it");
		// off Lettuce's event loop, which closing a connection waits for
		client.getResources().eventExecutorGroup().execute(this.connectionFactory::resetConnection);
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

}
