package io.redq.queue.chaos;

import java.nio.file.Path;
import java.util.Map;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
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
 * {@link OtherQueueJobs}), plus any {@code redq.*} and {@code spring.data.redis.*}
 * property.
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
