package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.redq.queue.core.JobDeadException;
import io.redq.queue.core.JobResultUnavailableException;
import io.redq.queue.core.QueueNames;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Waits for the results of jobs: the value a job's handler returned, kept with its
 * completion for the results' time to live. A wait is woken by Redis, never by polling:
 * the scripts that finish a job announce it on the queue's channel while someone waits on
 * the queue, and this instance listens on one connection for all of its waits. In a Redis
 * Cluster of Redis 7 or later on Lettuce the channel is sharded ({@code SSUBSCRIBE},
 * {@code SPUBLISH}), so that an announcement reaches the nodes of its queue's slot only,
 * not every node.
 *
 * <p>
 * A wait subscribes before it reads where the job stands, and reads again whenever the
 * subscription is made again (after Redis or the connection came back), so that a job
 * that finishes meanwhile is not missed; it ends with the result, with a
 * {@link JobDeadException} when the job died, with a
 * {@link JobResultUnavailableException} when Redis holds neither the job nor its result,
 * or with a {@link TimeoutException} at its timeout.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class JobResults implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(JobResults.class);

	/** How long the waiting key outlives a wait's deadline, for the clocks' skew. */
	private static final long WAITING_MARGIN_MILLIS = 1000;

	/** Waiters listen with plain pub/sub, as the waiting key tells the scripts. */
	private static final String PLAIN = "p";

	/** Waiters listen with sharded pub/sub, as the waiting key tells the scripts. */
	private static final String SHARDED = "s";

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.cluster.RedisClusterClient",
			JobResults.class.getClassLoader());

	private final QueueStore store;

	private final RedisMessageListenerContainer container;

	/**
	 * In a Redis Cluster on Lettuce, where the waits listen to sharded channels instead.
	 */
	private final @Nullable ShardedSubscriptions sharded;

	/** Ends waits at their timeouts; never blocks, so that no read delays a timeout. */
	private final ScheduledExecutorService timer;

	/** Reads where jobs stand, off the listener's thread. */
	private final ExecutorService reads;

	/** Subscribes to the queues' channels, which blocks while Redis is down. */
	private final ExecutorService subscriber;

	private final Map<String, QueueWaits> queues = new ConcurrentHashMap<>();

	/**
	 * Create an instance with a subscription connection of its own, opened at the first
	 * wait.
	 * @param store the queues
	 */
	public JobResults(QueueStore store) {
		this.store = store;
		RedisConnectionFactory connectionFactory = store.getTemplate().getRequiredConnectionFactory();
		this.container = new RedisMessageListenerContainer();
		this.container.setConnectionFactory(connectionFactory);
		this.container.afterPropertiesSet();
		this.container.start();
		this.sharded = (LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce
				&& lettuce.isClusterAware()) ? new ShardedSubscriptions(lettuce) : null;
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
				new CustomizableThreadFactory("redq-results-timer-"));
		timer.setRemoveOnCancelPolicy(true);
		this.timer = timer;
		this.reads = Executors.newFixedThreadPool(2, new CustomizableThreadFactory("redq-results-"));
		this.subscriber = Executors.newSingleThreadExecutor(new CustomizableThreadFactory("redq-results-subscriber-"));
	}

	/**
	 * Wait for the result of a job.
	 * @param <T> the result's type
	 * @param queue the job's queue
	 * @param id the job id
	 * @param type the result's type, which its JSON is read as; a job that completed
	 * without a result while this wait ran gives {@code null}
	 * @param timeout how long to wait at most
	 * @return the result, or a future completed exceptionally with a
	 * {@link JobDeadException}, a {@link JobResultUnavailableException}, a
	 * {@link TimeoutException}, a {@link QueryTimeoutException} when Redis did not say
	 * within the timeout which shard of a sharded queue holds the job, or the error of
	 * reading the result as {@code type}
	 */
	public <T> CompletableFuture<T> await(String queue, String id, Class<T> type, Duration timeout) {
		QueueNames.validate(queue);
		QueueNames.validateId(id);
		Assert.notNull(type, "type must not be null");
		Assert.isTrue(timeout != null && timeout.toMillis() > 0, "timeout must be at least 1ms: a wait always ends");
		// the wait follows the job's shard, which announces it; found within the wait's
		// own time, so that a shard that does not answer ends the wait in time
		String shard;
		try {
			shard = this.store.shardChoice().shardHolding(queue, id, timeout);
		}
		catch (QueryTimeoutException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		Wait<T> wait = new Wait<>(shard, id, type, System.nanoTime() + timeout.toNanos());
		QueueWaits waits = this.queues.computeIfAbsent(shard, QueueWaits::new);
		waits.add(wait);
		ScheduledFuture<?> timeoutTask = this.timer.schedule(
				() -> wait.future.completeExceptionally(new TimeoutException("No result of job " + id + " of queue '"
						+ queue + "' within " + timeout + ": it has not finished")),
				timeout.toNanos(), TimeUnit.NANOSECONDS);
		wait.future.whenComplete((result, ex) -> {
			timeoutTask.cancel(false);
			waits.remove(wait);
		});
		waits.subscribeOrRead(wait);
		return wait.future;
	}

	/**
	 * Stop listening and reading; the waits still running end with an
	 * {@link IllegalStateException}.
	 */
	@Override
	public void close() {
		this.queues.values()
			.forEach((waits) -> waits.byId.values()
				.forEach((running) -> running.forEach((wait) -> wait.future
					.completeExceptionally(new IllegalStateException("Stopped waiting for the result of job " + wait.id
							+ " of queue '" + wait.queue + "': the application is closing")))));
		this.timer.shutdownNow();
		this.reads.shutdownNow();
		this.subscriber.shutdownNow();
		if (this.sharded != null) {
			this.sharded.close();
		}
		try {
			this.container.destroy();
		}
		catch (Exception ex) {
			logger.warn("Could not close the subscription of job results", ex);
		}
	}

	/**
	 * Read where a wait's job stands, on this instance's own thread rather than the
	 * listener's, and end the wait when the job finished.
	 * @param completed whether the job was announced completed, so that finding no result
	 * means it returned none
	 */
	private void read(Wait<?> wait, boolean completed) {
		this.reads.execute(() -> {
			if (wait.future.isDone()) {
				return;
			}
			long left = TimeUnit.NANOSECONDS.toMillis(wait.deadlineNanos - System.nanoTime());
			if (left <= 0) {
				return;
			}
			QueueKeys keys = this.store.keys(wait.queue);
			List<String> scriptKeys = new ArrayList<>(keys.all());
			scriptKeys.add(keys.result(wait.id));
			try {
				List<?> state = this.store.getTemplate()
					.execute(this.store.getScripts().result(), scriptKeys, wait.id,
							(this.sharded != null && this.sharded.isSupported()) ? SHARDED : PLAIN,
							Long.toString(left + WAITING_MARGIN_MILLIS));
				wait.settle((String) state.get(0), (state.size() > 1) ? (String) state.get(1) : null, completed);
			}
			catch (RuntimeException ex) {
				// the subscription, made again once Redis is back, reads again
				logger.debug("Could not read the result of job " + wait.id + " of queue '" + wait.queue + "'", ex);
			}
		});
	}

	/**
	 * Read a job's result as the given type.
	 * @throws IllegalArgumentException when its JSON cannot be read as that type
	 */
	static <T> T read(String queue, String id, String json, Class<T> type) {
		try {
			return WireFormat.jsonMapper().readValue(json, type);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("Result of job " + id + " of queue '" + queue + "' cannot be read as "
					+ type.getName() + ": " + ex.getOriginalMessage() + " (its JSON: "
					+ ((json.length() > 200) ? json.substring(0, 200) + "..." : json) + ")", ex);
		}
	}

	/**
	 * The waits of one queue and their subscription to the queue's channel.
	 */
	private final class QueueWaits implements MessageListener, SubscriptionListener {

		private final Map<String, Set<Wait<?>>> byId = new ConcurrentHashMap<>();

		private final ChannelTopic channel;

		private volatile boolean subscribed;

		private boolean subscribing;

		QueueWaits(String queue) {
			this.channel = ChannelTopic.of(JobResults.this.store.keys(queue).waiting());
		}

		void add(Wait<?> wait) {
			this.byId.computeIfAbsent(wait.id, (id) -> ConcurrentHashMap.newKeySet()).add(wait);
		}

		void remove(Wait<?> wait) {
			this.byId.computeIfPresent(wait.id, (id, waits) -> {
				waits.remove(wait);
				return waits.isEmpty() ? null : waits;
			});
		}

		/**
		 * Read a wait's job once subscribed: at once when the subscription is made, else
		 * when it is confirmed (which reads every wait of the queue).
		 */
		void subscribeOrRead(Wait<?> wait) {
			if (this.subscribed) {
				read(wait, false);
				return;
			}
			synchronized (this) {
				if (!this.subscribing) {
					this.subscribing = true;
					subscribe();
				}
			}
			// confirmed meanwhile, and the reads of every wait may have missed this one
			if (this.subscribed) {
				read(wait, false);
			}
		}

		private void subscribe() {
			JobResults.this.subscriber.execute(() -> {
				ShardedSubscriptions sharded = JobResults.this.sharded;
				try {
					if (sharded != null && sharded.isSupported()) {
						sharded.subscribe(this.channel.getTopic(), this);
						return;
					}
				}
				catch (RuntimeException ex) {
					logger.debug("Could not subscribe to " + this.channel.getTopic() + ", trying again in 1s", ex);
					JobResults.this.timer.schedule(this::subscribe, 1, TimeUnit.SECONDS);
					return;
				}
				// while Redis is down the container retries on the calling thread
				JobResults.this.container.addMessageListener(this, this.channel);
			});
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			this.subscribed = true;
			this.byId.values().forEach((waits) -> waits.forEach((wait) -> read(wait, false)));
		}

		@Override
		public void onChannelUnsubscribed(byte[] channel, long count) {
			this.subscribed = false;
		}

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			String[] lines = new String(message.getBody(), StandardCharsets.UTF_8).split("\n");
			boolean completed = lines[0].equals("c");
			for (int i = 1; i < lines.length; i++) {
				Set<Wait<?>> waits = this.byId.get(lines[i]);
				if (waits != null) {
					waits.forEach((wait) -> read(wait, completed));
				}
			}
		}

	}

	/**
	 * A caller's wait for one job's result.
	 */
	private static final class Wait<T> {

		private final String queue;

		private final String id;

		private final Class<T> type;

		private final long deadlineNanos;

		private final CompletableFuture<T> future = new CompletableFuture<>();

		Wait(String queue, String id, Class<T> type, long deadlineNanos) {
			this.queue = queue;
			this.id = id;
			this.type = type;
			this.deadlineNanos = deadlineNanos;
		}

		/**
		 * End the wait as the job's state read in Redis says, unless it is pending.
		 */
		void settle(String state, @Nullable String value, boolean completed) {
			switch (state) {
				case "done" -> complete(value);
				case "dead" -> this.future.completeExceptionally(new JobDeadException(this.queue, this.id, value));
				case "unknown" -> {
					if (completed) {
						this.future.complete(null);
					}
					else {
						this.future.completeExceptionally(new JobResultUnavailableException(this.queue, this.id));
					}
				}
				default -> {
					// pending: its end is announced
				}
			}
		}

		private void complete(String json) {
			try {
				this.future.complete(read(this.queue, this.id, json, this.type));
			}
			catch (IllegalArgumentException ex) {
				this.future.completeExceptionally(ex);
			}
		}

	}

}
