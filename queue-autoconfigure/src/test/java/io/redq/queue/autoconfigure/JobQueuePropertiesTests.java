package io.redq.queue.autoconfigure;

import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefaults;
import io.redq.queue.core.RedisJobQueueOperations;
import io.redq.queue.core.RedisJobDispatcher;
import io.redq.queue.listener.ContainerProperties;
import io.redq.queue.lock.RedisLockService;
import io.redq.queue.recurring.RecurringJobScheduler;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JobQueueProperties}: its defaults are the library's defaults.
 *
 * @author Redq team
 */
class JobQueuePropertiesTests {

	private final JobQueueProperties properties = new JobQueueProperties();

	@Test
	void listenerDefaultValuesAreConsistent() {
		ContainerProperties container = new ContainerProperties();
		JobQueueProperties.Listener listener = this.properties.getListener();
		assertThat(listener.getConcurrency()).isEqualTo(container.getConcurrency());
		assertThat(listener.getBatchSize()).isEqualTo(container.getBatchSize());
		assertThat(listener.getPollTimeout()).isEqualTo(container.getPollTimeout());
		assertThat(listener.getLeaseTime()).isEqualTo(container.getLeaseTime());
		assertThat(listener.getShutdownTimeout()).isEqualTo(container.getShutdownTimeout());
		assertThat(listener.isAutoStartup()).isEqualTo(container.isAutoStartup());
		assertThat(listener.isVirtualThreads()).isEqualTo(container.isVirtualThreads());
	}

	@Test
	void listenerDefaultValuesAreTheDocumentedConstants() {
		JobQueueProperties.Listener listener = this.properties.getListener();
		assertThat(listener.getConcurrency()).isEqualTo(ContainerProperties.DEFAULT_CONCURRENCY);
		assertThat(listener.getBatchSize()).isEqualTo(ContainerProperties.DEFAULT_BATCH_SIZE);
		assertThat(listener.getPollTimeout()).isEqualTo(ContainerProperties.DEFAULT_POLL_TIMEOUT);
		assertThat(listener.getLeaseTime()).isEqualTo(ContainerProperties.DEFAULT_LEASE_TIME);
		assertThat(listener.getShutdownTimeout()).isEqualTo(ContainerProperties.DEFAULT_SHUTDOWN_TIMEOUT);
	}

	@Test
	void queueOverridesAreUnsetByDefault() {
		JobQueueProperties.Queue queue = new JobQueueProperties.Queue();
		assertThat(queue.getConcurrency()).isNull();
		assertThat(queue.getBatchSize()).isNull();
		assertThat(queue.getPollTimeout()).isNull();
		assertThat(queue.getLeaseTime()).isNull();
		assertThat(queue.getShutdownTimeout()).isNull();
		assertThat(queue.getAutoStartup()).isNull();
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
		assertThat(this.properties.getJobs()).isEmpty();
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
		assertThat(deadLetter.getMaxSize()).isEqualTo(RedisJobQueueOperations.DEFAULT_DEAD_LETTER_MAX_SIZE);
		assertThat(deadLetter.getTimeToLive()).isEqualTo(RedisJobQueueOperations.DEFAULT_DEAD_LETTER_TIME_TO_LIVE);
	}

	@Test
	void lockDefaultValuesAreConsistent() {
		// the service does not connect until it is used
		RedisLockService service = new RedisLockService(new LettuceConnectionFactory(), "redq");
		JobQueueProperties.Lock lock = this.properties.getLock();
		assertThat(lock.getLeaseTime()).isEqualTo(service.getLeaseTime())
			.isEqualTo(RedisLockService.DEFAULT_LEASE_TIME)
			.hasSeconds(30);
		assertThat(lock.isWatchdog()).isEqualTo(service.isWatchdog()).isEqualTo(RedisLockService.DEFAULT_WATCHDOG);
	}

	@Test
	void recurringDefaultValuesAreConsistent() {
		JobQueueProperties.Recurring recurring = this.properties.getRecurring();
		assertThat(recurring.getZone()).isEqualTo(RecurringJobScheduler.DEFAULT_ZONE);
		assertThat(recurring.getMaxLateness()).isEqualTo(RecurringJobScheduler.DEFAULT_MAX_LATENESS);
	}

}
