package io.redq.docs.testing;

import java.nio.file.Path;
import java.time.Duration;

import io.redq.queue.test.RedisCluster;
import io.redq.queue.test.RedisServer;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.awaitility.Awaitility.await;

/**
 * The "Testing your jobs" examples of servers of one's own, compiled for the page that
 * quotes them.
 *
 * @author Redq team
 */
class RedisServerExamples {

	void faultsAndRestarts(Path dataDirectory) {
		// tag::faults[]
		try (RedisServer redis = RedisServer.local()
			.arguments("--appendonly", "yes", "--appendfsync", "always")
			// default: a temporary directory, deleted by close()
			.directory(dataDirectory)
			.start()) {
			// kill -9, as a crash would
			redis.kill();
			// same port, same arguments, same data; waits until the data is loaded
			redis.restart();
			// SIGTERM: Redis writes its data and exits
			redis.shutdown();
			// SIGSTOP: keeps its connections, answers nothing
			redis.pause();
			// SIGCONT
			redis.resume();
		}
		// end::faults[]
	}

	void failover(ApplicationContextRunner runner) {
		// tag::cluster[]
		try (RedisCluster cluster = RedisCluster.startWithFailover()) {
			// spring.data.redis.cluster.nodes=...
			runner.withPropertyValues(cluster.springProperties()).run((context) -> {
				RedisServer master = cluster.masterOf("{mail}");
				RedisServer replica = cluster.replicasOf(master).get(0);
				master.kill();
				await().atMost(Duration.ofSeconds(30))
					.ignoreExceptions()
					.until(() -> cluster.masterOf("{mail}").equals(replica) && cluster.isOk());
				// the test's assertions on the application after the failover
			});
		}
		// end::cluster[]
	}

}
