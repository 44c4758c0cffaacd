package io.redq.queue.dashboard;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.redq.queue.redis.Keyspace;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Who changed what through the dashboard, and when: the latest {@value #MAX_ENTRIES}
 * changes of every application instance, newest first, in one Redis list
 * ({@code <prefix>:dashboard:actions}), each change one {@code LPUSH} and one
 * {@code LTRIM}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class ActionLog {

	/** The most changes kept. */
	public static final int MAX_ENTRIES = 1000;

	private static final TypeReference<Map<String, Object>> ENTRY = new TypeReference<>() {
	};

	private final StringRedisTemplate redis;

	private final String key;

	/**
	 * Create an instance.
	 * @param connectionFactory the Redis connection factory
	 * @param keyspace the keys of the queues, the log's beside them
	 */
	public ActionLog(RedisConnectionFactory connectionFactory, Keyspace keyspace) {
		this.redis = new StringRedisTemplate(connectionFactory);
		this.key = keyspace.dashboardActions();
	}

	/**
	 * Record a change.
	 * @param principal who made it, or {@code null} when nobody is authenticated
	 * @param action what was done, e.g. {@code retry}
	 * @param queue the queue, or the recurring job
	 * @param target the job id, or what else was changed
	 * @param jobs how many jobs it changed
	 */
	public void record(@Nullable String principal, String action, String queue, String target, long jobs) {
		Map<String, @Nullable Object> entry = new LinkedHashMap<>();
		entry.put("at", Instant.now().toEpochMilli());
		entry.put("principal", principal);
		entry.put("action", action);
		entry.put("queue", queue);
		entry.put("target", target);
		entry.put("jobs", jobs);
		this.redis.opsForList().leftPush(this.key, JsonMapper.shared().writeValueAsString(entry));
		this.redis.opsForList().trim(this.key, 0, MAX_ENTRIES - 1);
	}

	/**
	 * Return the latest changes, newest first.
	 * @param count the most to return
	 * @return the changes
	 */
	public List<Map<String, Object>> latest(int count) {
		List<String> entries = this.redis.opsForList().range(this.key, 0, count - 1);
		List<Map<String, Object>> latest = new ArrayList<>();
		if (entries != null) {
			for (String entry : entries) {
				latest.add(JsonMapper.shared().readValue(entry, ENTRY));
			}
		}
		return latest;
	}

}
