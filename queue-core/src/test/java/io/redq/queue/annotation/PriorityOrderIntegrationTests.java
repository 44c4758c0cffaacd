package io.redq.queue.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.test.RedisServer;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Jobs of {@link QueuedJob#priority()} levels, and a dispatch that overrides its job's
 * level, run in the order of their levels on two application instances with several
 * workers each, against a real Redis.
 *
 * @author Redq team
 */
@WithRedis
class PriorityOrderIntegrationTests {

	private static final String QUEUE = "prio";

	private static final int PER_LEVEL = 30;

	/** The workers of both instances: how far a start may be from its reservation. */
	private static final int WORKERS = 6;

	private static final List<String> started = new CopyOnWriteArrayList<>();

	private final RedisServer redis;

	PriorityOrderIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@Test
	void higherLevelsStartFirstOnEveryInstanceAndEveryJobRunsOnce() {
		started.clear();
		try (AnnotationConfigApplicationContext first = start();
				AnnotationConfigApplicationContext second = new AnnotationConfigApplicationContext()) {
			JobQueueOperations operations = first.getBean(JobQueueOperations.class);
			operations.pause(QUEUE);
			JobDispatcher dispatcher = first.getBean(JobDispatcher.class);
			List<JobRequest> requests = new ArrayList<>();
			for (int i = 0; i < PER_LEVEL; i++) {
				requests.add(JobRequest.of("bulk", "0-" + i).build());
				requests.add(JobRequest.of("normal", "5-" + i).build());
				// the last of the level-9 jobs are normal jobs dispatched at level 9
				requests.add((i < PER_LEVEL - 5) ? JobRequest.of("urgent", "9-" + i).build()
						: JobRequest.of("normal", "9-" + i).priority(9).build());
			}
			dispatcher.dispatchAll(requests);
			assertThat(operations.snapshot(QUEUE).readyByPriority()).containsEntry(9, (long) PER_LEVEL)
				.containsEntry(5, (long) PER_LEVEL)
				.containsEntry(0, (long) PER_LEVEL);
			configure(second);
			second.refresh();
			operations.resume(QUEUE);
			await().atMost(Duration.ofSeconds(30)).until(() -> started.size() >= 3 * PER_LEVEL);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> operations.stats(QUEUE), (stats) -> stats.equals(new QueueStats(0, 0, 0, 0)));
		}
		assertThat(started).hasSize(3 * PER_LEVEL).doesNotHaveDuplicates();
		// level 9 takes 512 of every 545 reservations while all three levels have jobs,
		// level 5 32 and level 0 one: the level-9 jobs are reserved among the first 32,
		// and the level-0 ones after every level-9 job. A worker holds one job at a time,
		// so when a job is reserved at most WORKERS - 1 jobs reserved before it have not
		// started, however late their threads run: the first PER_LEVEL + 3 - WORKERS
		// starts are of the first 32 reservations, and no level-0 job starts before
		// PER_LEVEL + 1 - WORKERS others
		assertThat(started.subList(0, PER_LEVEL + 3 - WORKERS)).as("the first starts %s", started)
			.filteredOn((id) -> id.startsWith("9-"))
			.hasSizeGreaterThanOrEqualTo(PER_LEVEL + 1 - WORKERS);
		assertThat(firstStartOf(0)).isGreaterThanOrEqualTo(PER_LEVEL + 1 - WORKERS);
		assertThat(meanStartOf(9)).isLessThan(meanStartOf(5));
		assertThat(meanStartOf(5)).isLessThan(meanStartOf(0));
	}

	private static int firstStartOf(int level) {
		return positions(level).min().orElseThrow();
	}

	private static double meanStartOf(int level) {
		return positions(level).average().orElseThrow();
	}

	private static IntStream positions(int level) {
		return IntStream.range(0, started.size()).filter((i) -> started.get(i).startsWith(level + "-"));
	}

	private AnnotationConfigApplicationContext start() {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		configure(context);
		context.refresh();
		return context;
	}

	private void configure(AnnotationConfigApplicationContext context) {
		context.registerBean(RedisServer.class, () -> this.redis);
		context.register(JobQueueConfiguration.class, Jobs.class);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableJobQueue
	static class JobQueueConfiguration {

		@Bean
		LettuceConnectionFactory redisConnectionFactory(RedisServer redis) {
			return new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
		}

		@Bean
		RedisJobQueueOperations jobQueueOperations(RedisConnectionFactory connectionFactory) {
			return new RedisJobQueueOperations(connectionFactory, QueueScripts.load(), new Keyspace("redq"));
		}

		@Bean
		RedisJobDispatcher jobDispatcher(RedisJobQueueOperations operations, JobCatalog jobCatalog) {
			return new RedisJobDispatcher(operations, jobCatalog, JsonMapper.shared());
		}

		@Bean
		JobListenerContainerFactory jobListenerContainerFactory(RedisJobQueueOperations operations) {
			JobListenerContainerFactory factory = new JobListenerContainerFactory(operations.getListenerOperations(),
					JsonMapper.shared());
			// one job per reservation and none ahead: each start follows its reservation
			factory.getContainerProperties().setConcurrency(WORKERS / 2);
			factory.getContainerProperties().setBatchSize(1);
			factory.getContainerProperties().setPrefetch(0);
			return factory;
		}

	}

	static class Jobs {

		@QueuedJob(name = "urgent", queue = QUEUE, priority = 9)
		void urgent(String id) {
			started.add(id);
		}

		@QueuedJob(name = "normal", queue = QUEUE)
		void normal(String id) {
			started.add(id);
		}

		@QueuedJob(name = "bulk", queue = QUEUE, priority = 0)
		void bulk(String id) {
			started.add(id);
		}

	}

}
