package io.redq.queue.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import io.redq.queue.redis.ListenerOperations;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ReservedJob;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.ContextClosedEvent;

/**
 * A worker for the fault-injection tests, started by them as a separate JVM.
 * <p>
 * Settings, as {@code --name=value} arguments: {@code chaos.ledger} (the ledger file,
 * required), {@code chaos.ledger-fsync} (default true), {@code chaos.handler-millis}
 * (default 50), {@code chaos.other-queue} (default false: also run
 * {@link OtherQueueJobs}), {@code chaos.ack-and-wait} (a queue: reserve and acknowledge
 * the jobs waiting in it, outside any container, record them {@code ACKED}, then wait to
 * be killed; with {@code redq.listener.auto-startup=false} no migrator hands its
 * completion over), plus any {@code redq.*} and {@code spring.data.redis.*} property.
 *
 * @author Redq team
 * @since 0.1.0
 */
@SpringBootApplication(proxyBeanMethods = false)
public class ChaosWorker {

	@Bean(destroyMethod = "close")
	Ledger chaosLedger(@Value("${chaos.ledger}") Path file, @Value("${chaos.ledger-fsync:true}") boolean fsync) {
		return new Ledger(file, fsync);
	}

	@Bean
	ChaosJobs chaosJobs(Ledger ledger, @Value("${chaos.handler-millis:50}") long handlerMillis) {
		return new ChaosJobs(ledger, handlerMillis);
	}

	@Bean
	@ConditionalOnBooleanProperty("chaos.other-queue")
	OtherQueueJobs otherQueueJobs(ChaosJobs jobs) {
		return new OtherQueueJobs(jobs);
	}

	@Bean
	@ConditionalOnProperty("chaos.ack-and-wait")
	ApplicationRunner chaosAckAndWait(RedisJobQueueOperations operations, Ledger ledger,
			@Value("${chaos.ack-and-wait}") String queue) {
		return (arguments) -> {
			ListenerOperations listener = operations.getListenerOperations();
			List<ReservedJob> jobs = listener.reserve(queue, 100, Duration.ofMinutes(1)).jobs();
			for (ReservedJob job : jobs) {
				ledger.record("START", job.id(), job.attempt());
				ledger.record("DONE", job.id(), job.attempt());
			}
			listener.getLeaseOperations().ack(queue, jobs.stream().map(ReservedJob::lease).toList());
			for (ReservedJob job : jobs) {
				ledger.record("ACKED", job.id(), job.attempt());
			}
			// killed here, between the two steps of the hand-overs of the jobs'
			// completions
			new CountDownLatch(1).await();
		};
	}

	@Bean
	ApplicationListener<ApplicationReadyEvent> chaosReady(Ledger ledger) {
		return (event) -> ledger.record("READY", "-", 0);
	}

	@Bean
	ApplicationListener<ContextClosedEvent> chaosStopped(Ledger ledger) {
		// published before the containers stop: STOPPING, not STOPPED
		return (event) -> ledger.record("STOPPING", "-", 0);
	}

	/**
	 * Run a worker.
	 * @param args the settings
	 */
	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(ChaosWorker.class);
		application.setDefaultProperties(Map.of("spring.main.banner-mode", "off", "spring.data.redis.host", "127.0.0.1",
				"spring.data.redis.timeout", "2s"));
		application.run(args);
	}

}
