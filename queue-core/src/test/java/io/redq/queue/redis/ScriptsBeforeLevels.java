package io.redq.queue.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;

import io.redq.queue.script.QueueScripts;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The scripts of data model 4 as they were before priority levels (a copy of them in
 * {@code before-levels}), for tests that run them beside today's on one queue.
 *
 * @author Redq team
 */
public final class ScriptsBeforeLevels {

	private ScriptsBeforeLevels() {
	}

	/**
	 * Return operations on a Redis with the scripts from before priority levels.
	 * @param connectionFactory the Redis
	 * @param keyPrefix the prefix of the queues' keys
	 * @return the operations
	 */
	public static RedisJobQueueOperations operations(RedisConnectionFactory connectionFactory, String keyPrefix) {
		// the older scripts refuse a queue of a later model (see
		// DataModelIntegrationTests): they are given today's, so that they leave the
		// stale entries a queue they kept brings into it
		String common = read("common.lua").replace("\nlocal MODEL = 4\n", "\nlocal MODEL = " + model() + "\n");
		// push, result and progress came later; the tests enqueue under their own ids,
		// which push never takes, wait for no result and write no progress
		QueueScripts scripts = QueueScripts
			.from((definition) -> Set.of("push", "result", "progress").contains(definition.name()) ? definition.load()
					: RedisScript.of(common + "\n" + read(definition.name() + ".lua"), definition.resultType()));
		return new RedisJobQueueOperations(connectionFactory, scripts, new Keyspace(keyPrefix));
	}

	private static String model() {
		try {
			String common = new ClassPathResource("common.lua", QueueScripts.class)
				.getContentAsString(StandardCharsets.UTF_8);
			return common.substring(common.indexOf("\nlocal MODEL = ") + 15).lines().findFirst().orElseThrow();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String read(String name) {
		try {
			return new ClassPathResource("before-levels/" + name, ScriptsBeforeLevels.class)
				.getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
