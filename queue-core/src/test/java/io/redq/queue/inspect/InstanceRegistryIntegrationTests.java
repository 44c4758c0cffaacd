package io.redq.queue.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.lettuce.core.cluster.SlotHash;
import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.inspect.InstanceView.ConsumedQueue;
import io.redq.queue.redis.AbstractQueueIntegrationTests;
import io.redq.queue.redis.EnqueueCommand;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link InstanceRegistry} and {@link InstanceHeartbeat} against a real Redis.
 *
 * @author Redq team
 */
class InstanceRegistryIntegrationTests extends AbstractQueueIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private static final String INDEX = "redq:registry:{instances}:index";

	private InstanceRegistry registry;

	@BeforeEach
	void setUp() {
		this.registry = new InstanceRegistry(this.operations);
	}

	@Test
	void listsALiveInstanceWithItsQueuesAndForgetsADeadOneByItself() {
		Instant started = Instant.ofEpochMilli(1_700_000_000_000L);
		this.registry.heartbeat(instance("a", started, new ConsumedQueue("mail", 4, 2, true)), Duration.ofMinutes(1));
		this.registry.heartbeat(instance("dead", started, new ConsumedQueue("pdf", 1, 0, true)),
				Duration.ofMillis(200));
		// the dead one's key expires by itself: it is no longer listed, and the next
		// heartbeat of another instance takes it out of the index
		await().atMost(DEADLINE).until(() -> !this.template.hasKey("redq:registry:{instances}:instance:dead"));
		await().atMost(DEADLINE).until(() -> this.registry.instances().size() == 1);
		InstanceView listed = this.registry.instances().get(0);
		assertThat(listed.id()).isEqualTo("a");
		assertThat(listed.startedAt()).isEqualTo(started);
		assertThat(listed.heartbeatAt()).isAfter(Instant.now().minus(Duration.ofMinutes(1)));
		assertThat(listed.queues()).containsExactly(new ConsumedQueue("mail", 4, 2, true));
		assertThat(this.registry.consumedQueues()).containsExactly("mail");
		assertThat(this.template.opsForZSet().size(INDEX)).as("not yet pruned").isEqualTo(2);
		this.registry.heartbeat(instance("a", started), Duration.ofMinutes(1));
		assertThat(this.template.opsForZSet().range(INDEX, 0, -1)).containsExactly("a");
		assertThat(this.template.getExpire(INDEX)).as("the index expires with the last instance").isPositive();
	}

	@Test
	void keepsAtMostTheLatestInstancesInOneSlot() {
		for (int i = 0; i <= InstanceRegistry.MAX_INSTANCES; i++) {
			this.registry.heartbeat(instance("i" + i, Instant.now()), Duration.ofMinutes(1));
		}
		assertThat(this.template.opsForZSet().size(INDEX)).isEqualTo(InstanceRegistry.MAX_INSTANCES);
		assertThat(SlotHash.getSlot("redq:registry:{instances}:instance:i1")).isEqualTo(SlotHash.getSlot(INDEX));
	}

	@Test
	void aQueueOfAnyNameSharesNoKeyWithTheRegistry() {
		this.registry.heartbeat(instance("a", Instant.now(), new ConsumedQueue("instances", 1, 0, true)),
				Duration.ofMinutes(1));
		this.operations.getEnqueueOperations()
			.enqueue("instances",
					List.of(new EnqueueCommand("job-1", Due.NOW, DuplicatePolicy.KEEP, "\"job\":\"x\"}")));
		this.operations.purge("instances");
		assertThat(this.registry.instances()).extracting(InstanceView::id).containsExactly("a");
		assertThat(this.template.hasKey(INDEX)).isTrue();
	}

	@Test
	void aHeartbeatListsTheInstanceFromItsStartUntilItsStop() {
		InstanceHeartbeat heartbeat = new InstanceHeartbeat(this.registry, new JobListenerRegistry(new JobCatalog()),
				"shop");
		heartbeat.setInterval(Duration.ofMillis(100));
		heartbeat.start();
		try {
			await().atMost(DEADLINE)
				.until(() -> this.registry.instances().stream().anyMatch((i) -> i.id().equals(heartbeat.getId())));
			assertThat(heartbeat.getId()).startsWith("shop@");
			assertThat(this.registry.instances().get(0).pid()).isEqualTo(ProcessHandle.current().pid());
		}
		finally {
			heartbeat.stop();
		}
		assertThat(this.template.opsForZSet().size(INDEX)).as("removed at once").isZero();
		assertThat(heartbeat.isRunning()).isFalse();
	}

	@Test
	void theInspectorListsTheQueuesTheInstancesConsumeWithoutScanning() {
		JobQueueInspector inspector = new JobQueueInspector(this.operations, new JobCatalog());
		inspector.setDiscoveryInterval(Duration.ofSeconds(-1));
		inspector.setInstances(this.registry);
		this.registry.heartbeat(instance("a", Instant.now(), new ConsumedQueue("mail", 1, 0, true)),
				Duration.ofMinutes(1));
		assertThat(inspector.queueNames()).containsExactly("mail");
		assertThat(inspector.exists("mail")).isTrue();
		assertThat(inspector.instances()).extracting(InstanceView::id).containsExactly("a");
	}

	private static InstanceView instance(String id, Instant started, ConsumedQueue... queues) {
		return new InstanceView(id, "app", "host", 1, started, Instant.EPOCH, List.of(queues));
	}

}
