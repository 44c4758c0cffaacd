package io.redq.queue.dashboard;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.zip.CRC32;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.ShardView;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ContextConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A sharded queue in a real browser, on the read-only dashboard (its default): a queue
 * whose jobs all live in its last shard is listed, and its page shows its shards on
 * request.
 *
 * @author Redq team
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.queues.sharded.shards=3" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class DashboardShardsBrowserIntegrationTests extends AbstractBrowserIntegrationTests {

	private static final String SHARDED = "sharded";

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private JobQueueInspector inspector;

	@Test
	void aQueueWhoseJobsAllLiveInItsLastShardIsListedAndShowsItsShardsOnRequest() throws Exception {
		// every listing scans Redis, so that a queue dispatched to just now is listed
		this.inspector.setDiscoveryInterval(Duration.ZERO);
		for (int i = 0; i < 2; i++) {
			this.dispatcher
				.dispatch(JobRequest.of("work", "x").queue(SHARDED).id(idOnLastShard("job" + i + "-")).build());
		}
		List<ShardView> shards = this.inspector.shards(SHARDED);
		assertThat(shards).extracting((shard) -> shard.snapshot().stats().ready()).containsExactly(0L, 0L, 2L);
		open("");
		await().atMost(DEADLINE).until(() -> text("tr[data-queue='sharded'] td.ready").equals("2"));
		assertThat(text("tr[data-queue='sharded'] td.kind")).isEqualTo("only in Redis");
		open("queue/sharded/ready");
		assertThat(find("#queue-shards")).isEmpty();
		click("#queue-shards-toggle");
		await().atMost(DEADLINE).until(() -> find("#queue-shards tbody tr").size() == 3);
		for (int i = 0; i < 3; i++) {
			String row = "#queue-shards tr[data-shard='" + i + "'] ";
			assertThat(text(row + "td.tag")).isEqualTo(shards.get(i).hashTag());
			assertThat(text(row + "td.ready")).isEqualTo((i == 2) ? "2" : "0");
			assertThat(text(row + "td.delayed") + text(row + "td.reserved") + text(row + "td.dead")).isEqualTo("000");
		}
		assertThat(text("#queue-shards tr[data-shard='0'] td.tag")).isEqualTo("{sharded}");
		// a single Redis: no master and slot to show
		assertThat(find("#queue-shards td.master")).isEmpty();
		screenshot("queue-shards");
		click("#queue-shards-toggle");
		await().atMost(DEADLINE).until(() -> find("#queue-shards").isEmpty());
	}

	// the shard a caller id maps to, as QueueStore.shardOf chooses it: a stable hash of
	// the id over the shards
	private static String idOnLastShard(String prefix) {
		for (int i = 0;; i++) {
			CRC32 hash = new CRC32();
			hash.update((prefix + i).getBytes(StandardCharsets.UTF_8));
			if (hash.getValue() % 3 == 2) {
				return prefix + i;
			}
		}
	}

}
