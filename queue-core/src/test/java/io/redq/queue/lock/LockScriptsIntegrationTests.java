package io.redq.queue.lock;

import java.time.Duration;
import java.util.List;

import io.redq.queue.redis.RedisQueueExtension;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock scripts run twice with the same arguments, as when Lettuce re-sends a command
 * whose reply was lost: the second run changes nothing and answers as the first did.
 *
 * @author Redq team
 */
@WithRedis
@ExtendWith(RedisQueueExtension.class)
class LockScriptsIntegrationTests {

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> ACQUIRE = RedisScript
		.of(new ClassPathResource("io/redq/queue/lock/acquire.lua"), List.class);

	private static final List<String> KEYS = List.of("test:lock:{report}", "test:lock:{report}:fence");

	private StringRedisTemplate template;

	@BeforeEach
	void setUp(StringRedisTemplate template) {
		this.template = template;
	}

	@Test
	void reSentAcquireOfTheHolderAnswersAcquiredWithTheSameFencingToken() {
		assertThat(acquire("owner-1", 60_000)).containsExactly(1L, 1L);
		this.template.expire(KEYS.get(0), Duration.ofSeconds(10));
		assertThat(acquire("owner-1", 60_000)).as("the re-send").containsExactly(1L, 1L);
		assertThat(this.template.opsForValue().get(KEYS.get(0))).isEqualTo("owner-1");
		assertThat(this.template.getExpire(KEYS.get(0))).as("the lease of the first run is kept").isBetween(1L, 10L);
		assertThat(this.template.opsForValue().get(KEYS.get(1))).as("no fencing token was used up").isEqualTo("1");
	}

	@Test
	void anotherOwnerIsRefusedWithTheHoldersRemainingLease() {
		assertThat(acquire("owner-1", 60_000)).containsExactly(1L, 1L);
		List<Object> refused = acquire("owner-2", 60_000);
		assertThat(refused.get(0)).isEqualTo(0L);
		assertThat((Long) refused.get(1)).isBetween(1L, 60_000L);
		this.template.delete(KEYS.get(0));
		assertThat(acquire("owner-2", 60_000)).as("free again: the next fencing token").containsExactly(1L, 2L);
	}

	private List<Object> acquire(String token, long leaseMillis) {
		@SuppressWarnings("unchecked")
		List<Object> result = this.template.execute(ACQUIRE, KEYS, token, Long.toString(leaseMillis));
		return result;
	}

}
