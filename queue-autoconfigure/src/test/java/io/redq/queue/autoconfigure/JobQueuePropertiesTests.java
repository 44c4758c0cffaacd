package io.redq.queue.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefaults;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.listener.ContainerProperties;
import io.redq.queue.lock.RedisLockService;
import io.redq.queue.recurring.RecurringJobScheduler;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.ProgressOperations;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.StringUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link JobQueueProperties}: its defaults are the library's defaults.
 *
 * @author Redq team
 */
class JobQueuePropertiesTests {

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	private final JobQueueProperties properties = new JobQueueProperties();

	@Test
	void listenerDefaultValuesAreConsistent() {
		ContainerProperties container = new ContainerProperties();
		JobQueueProperties.Listener listener = this.properties.getListener();
		assertThat(listener.getConcurrency()).isEqualTo(container.getConcurrency())
			.isEqualTo(ContainerProperties.DEFAULT_CONCURRENCY);
		assertThat(listener.getBatchSize()).isEqualTo(container.getBatchSize())
			.isEqualTo(ContainerProperties.DEFAULT_BATCH_SIZE);
		assertThat(listener.getPrefetch()).isEqualTo(container.getPrefetch())
			.isEqualTo(ContainerProperties.DEFAULT_PREFETCH);
		assertThat(listener.getPollTimeout()).isEqualTo(container.getPollTimeout())
			.isEqualTo(ContainerProperties.DEFAULT_POLL_TIMEOUT);
		assertThat(listener.getLeaseTime()).isEqualTo(container.getLeaseTime())
			.isEqualTo(ContainerProperties.DEFAULT_LEASE_TIME);
		assertThat(listener.getMaxStalls()).isEqualTo(container.getMaxStalls())
			.isEqualTo(ListenerOperations.DEFAULT_MAX_STALLS);
		assertThat(listener.getShutdownTimeout()).isEqualTo(container.getShutdownTimeout())
			.isEqualTo(ContainerProperties.DEFAULT_SHUTDOWN_TIMEOUT);
		assertThat(listener.getAutoStartup()).isEqualTo(container.isAutoStartup()).isTrue();
		assertThat(listener.getMaxRunning()).isEqualTo(container.getMaxRunning()).isZero();
		// follows spring.threads.virtual.enabled, which is off by default
		assertThat(container.isVirtualThreads()).isFalse();
	}

	@Test
	void inspectionTimeoutIsTheInspectorsDefault() {
		assertThat(this.properties.getInspection().getTimeout()).isEqualTo(JobQueueInspector.DEFAULT_READ_TIMEOUT);
	}

	@Test
	void keyPrefixWithABraceIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.properties.setKeyPrefix("app{1}"))
			.withMessageStartingWith("Invalid key prefix 'app{1}': it contains '{'");
		assertThat(this.properties.getKeyPrefix()).isEqualTo(RedisJobQueueOperations.DEFAULT_KEY_PREFIX);
	}

	@Test
	void everyPropertyWithADefaultShowsItInTheMetadata() throws IOException {
		BeanWrapper defaults = new BeanWrapperImpl(this.properties);
		List<String> withoutDefault = new ArrayList<>();
		for (JsonNode property : metadataProperties()) {
			String name = property.get("name").asString();
			if (name.startsWith("redq.") && !property.has("defaultValue")) {
				Object value = defaults.getPropertyValue(beanPath(name));
				if (value != null && !(value instanceof Map)) {
					withoutDefault.add(name);
				}
			}
		}
		assertThat(withoutDefault).as("properties whose default the metadata does not show").isEmpty();
	}

	@Test
	void resultDefaultsAreTheLibraryDefaults() {
		assertThat(this.properties.getResults().getMaxSize().toBytes())
			.isEqualTo(ProgressOperations.DEFAULT_RESULT_MAX_SIZE);
		assertThat(this.properties.getResults().getTimeToLive())
			.isEqualTo(ProgressOperations.DEFAULT_RESULT_TIME_TO_LIVE);
	}

	@Test
	void queueOverridesAreUnsetByDefault() {
		JobQueueProperties.Listener queue = new JobQueueProperties.Listener();
		assertThat(queue.getConcurrency()).isNull();
		assertThat(queue.getBatchSize()).isNull();
		assertThat(queue.getPollTimeout()).isNull();
		assertThat(queue.getLeaseTime()).isNull();
		assertThat(queue.getMaxStalls()).isNull();
		assertThat(queue.getShutdownTimeout()).isNull();
		assertThat(queue.getAutoStartup()).isNull();
		assertThat(queue.getPrefetch()).isNull();
		assertThat(queue.getGroupMaxRunning()).isNull();
		assertThat(queue.getMaxRunning()).isNull();
		assertThat(this.properties.getQueues()).isEmpty();
	}

	@Test
	void jobDefaultValuesAreConsistent() {
		JobQueueProperties.Job job = this.properties.getJob();
		assertThat(job.getQueue()).isEqualTo(JobDefaults.STANDARD.queue());
		assertThat(job.getMaxAttempts()).isEqualTo(JobDefaults.STANDARD.maxAttempts());
		assertThat(job.getTimeout()).isEqualTo(JobDefaults.STANDARD.timeout());
		JobQueueProperties.Backoff backoff = job.getBackoff();
		assertThat(
				new JobBackoff(backoff.getDelay(), backoff.getMultiplier(), backoff.getMaxDelay(), backoff.getJitter()))
			.isEqualTo(JobBackoff.DEFAULT)
			.isEqualTo(JobDefaults.STANDARD.backoff());
	}

	@Test
	void remoteJobValuesAreUnsetByDefault() {
		JobQueueProperties.RemoteJob job = new JobQueueProperties.RemoteJob();
		assertThat(job.getQueue()).isNull();
		assertThat(job.getMaxAttempts()).isNull();
		assertThat(job.getTimeout()).isNull();
		assertThat(this.properties.getRemoteJobs()).isEmpty();
	}

	@Test
	void keyPrefixDefaultValueIsConsistent() {
		assertThat(this.properties.getKeyPrefix()).isEqualTo(RedisJobQueueOperations.DEFAULT_KEY_PREFIX);
	}

	@Test
	void dispatcherDefaultValuesAreConsistent() {
		assertThat(this.properties.getDispatcher().getMaxPayloadSize().toBytes())
			.isEqualTo(RedisJobDispatcher.DEFAULT_MAX_PAYLOAD_SIZE);
	}

	@Test
	void deadLetterDefaultValuesAreConsistent() {
		JobQueueProperties.DeadLetter deadLetter = this.properties.getDeadLetter();
		assertThat(deadLetter.getMaxSize()).isEqualTo(ListenerOperations.DEFAULT_DEAD_LETTER_MAX_SIZE);
		assertThat(deadLetter.getTimeToLive()).isEqualTo(ListenerOperations.DEFAULT_DEAD_LETTER_TIME_TO_LIVE);
	}

	@Test
	void lockDefaultValuesAreConsistent() {
		// the service does not connect until it is used
		RedisLockService service = new RedisLockService(new LettuceConnectionFactory(), new Keyspace("redq"));
		JobQueueProperties.Lock lock = this.properties.getLock();
		assertThat(lock.getLeaseTime()).isEqualTo(service.getLeaseTime())
			.isEqualTo(RedisLockService.DEFAULT_LEASE_TIME)
			.hasSeconds(30);
		assertThat(lock.isWatchdog()).isEqualTo(service.isWatchdog()).isEqualTo(RedisLockService.DEFAULT_WATCHDOG);
	}

	@Test
	void completedDefaultValueKeepsNone() {
		assertThat(this.properties.getCompleted().getMaxSize()).isZero();
	}

	@Test
	void recurringDefaultValuesAreConsistent() {
		JobQueueProperties.Recurring recurring = this.properties.getRecurring();
		assertThat(recurring.getZone()).isEqualTo(RecurringJobScheduler.DEFAULT_ZONE);
		assertThat(recurring.getMaxLateness()).isEqualTo(RecurringJobScheduler.DEFAULT_MAX_LATENESS);
	}

	private static List<JsonNode> metadataProperties() throws IOException {
		List<JsonNode> properties = new ArrayList<>();
		for (URL url : Collections.list(JobQueuePropertiesTests.class.getClassLoader().getResources(METADATA))) {
			try (InputStream in = url.openStream()) {
				JsonNode metadata = JsonMapper.shared().readTree(in);
				for (JsonNode property : metadata.path("properties")) {
					if (property.path("sourceType").asString("").startsWith(JobQueueProperties.class.getName())) {
						properties.add(property);
					}
				}
			}
		}
		assertThat(properties).as("properties of %s in %s", JobQueueProperties.class, METADATA).isNotEmpty();
		return properties;
	}

	private static String beanPath(String name) {
		StringBuilder path = new StringBuilder();
		for (String segment : name.substring("redq.".length()).split("\\.")) {
			String[] words = segment.split("-");
			path.append(path.isEmpty() ? "" : ".").append(words[0]);
			for (int i = 1; i < words.length; i++) {
				path.append(StringUtils.capitalize(words[i]));
			}
		}
		return path.toString();
	}

}
