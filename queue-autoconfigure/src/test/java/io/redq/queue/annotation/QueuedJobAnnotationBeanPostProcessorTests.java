package io.redq.queue.annotation;

import java.time.Duration;
import java.util.List;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.config.JobQueueConfigUtils;
import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefaults;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.listener.JobContext;
import io.redq.queue.listener.JobListenerContainer;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.script.QueueScripts;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ResolvableType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link QueuedJobAnnotationBeanPostProcessor}, without Redis: the container
 * factory works on a connection factory that is never started, and its containers do not
 * start.
 *
 * @author Redq team
 */
class QueuedJobAnnotationBeanPostProcessorTests {

	private static final JobDefaults DEFAULTS = new JobDefaults("fallback", 4, Duration.ofSeconds(9),
			new JobBackoff(Duration.ofSeconds(2), 3.0, Duration.ofMinutes(1), Duration.ofMillis(100)));

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(JobQueueConfiguration.class, ContainerFactoryConfiguration.class);

	@Test
	void nameDefaultsToMethodNameInKebabCase() {
		this.runner.withBean(InvoiceJobs.class).run((context) -> {
			assertThat(catalog(context).find("send-invoice")).isNotNull();
			assertThat(catalog(context).find("sendInvoice")).isNull();
		});
	}

	@Test
	void derivedNameSplitsAcronyms() {
		this.runner.withBean(AcronymJobs.class).run((context) -> {
			assertThat(catalog(context).find("export-csv-report")).isNotNull();
			assertThat(catalog(context).find("send-sms")).isNotNull();
			assertThat(catalog(context).find("fetch-url-list")).isNotNull();
		});
	}

	@Test
	void unsetAttributesTakeTheJobDefaultsBean() {
		this.runner.withBean(InvoiceJobs.class).run((context) -> {
			JobDefinition definition = catalog(context).find("tick");
			assertThat(definition)
				.isEqualTo(new JobDefinition("tick", "fallback", 4, Duration.ofSeconds(9), DEFAULTS.backoff(), null));
		});
	}

	@Test
	void withoutJobDefaultsBeanUnsetAttributesTakeTheLibraryDefaults() {
		new ApplicationContextRunner().withUserConfiguration(EnableJobQueueConfiguration.class)
			.withUserConfiguration(ContainerFactoryConfiguration.class)
			.withBean(InvoiceJobs.class)
			.run((context) -> {
				JobDefinition definition = catalog(context).find("tick");
				assertThat(definition.queue()).isEqualTo(JobDefaults.STANDARD.queue());
				assertThat(definition.maxAttempts()).isEqualTo(JobDefaults.STANDARD.maxAttempts());
				assertThat(definition.timeout()).isEqualTo(JobDefaults.STANDARD.timeout());
				assertThat(definition.backoff()).isEqualTo(JobDefaults.STANDARD.backoff());
			});
	}

	@Test
	void placeholdersAreResolvedFromProperties() {
		this.runner.withBean(PlaceholderJobs.class)
			.withPropertyValues("jobs.name=renamed", "jobs.queue=mail", "jobs.timeout=45s", "jobs.attempts=7",
					"jobs.delay=500ms", "jobs.multiplier=1.5", "jobs.max-delay=PT2M", "jobs.jitter=50ms")
			.run((context) -> assertThat(catalog(context).find("renamed"))
				.isEqualTo(new JobDefinition("renamed", "mail", 7, Duration.ofSeconds(45),
						new JobBackoff(Duration.ofMillis(500), 1.5, Duration.ofMinutes(2), Duration.ofMillis(50)),
						Invoice.class)));
	}

	@Test
	void placeholderDefaultsApply() {
		this.runner.withBean(PlaceholderJobs.class).run((context) -> {
			JobDefinition definition = catalog(context).find("placeholder-job");
			assertThat(definition.queue()).isEqualTo("from-default");
			assertThat(definition.maxAttempts()).isEqualTo(2);
		});
	}

	@Test
	void maxAttemptsAttributeIsUsed() {
		this.runner.withBean(InvoiceJobs.class)
			.run((context) -> assertThat(catalog(context).find("remind").maxAttempts()).isEqualTo(5));
	}

	@Test
	void payloadTypeIsRecorded() {
		this.runner.withBean(InvoiceJobs.class).run((context) -> {
			JobCatalog catalog = catalog(context);
			assertThat(catalog.find("send-invoice").payloadType()).isEqualTo(Invoice.class);
			assertThat(ResolvableType.forType(catalog.find("send-batch").payloadType()))
				.hasToString(ResolvableType.forClassWithGenerics(List.class, Invoice.class).toString());
			assertThat(catalog.find("remind").payloadType()).isEqualTo(String.class);
			assertThat(catalog.find("tick").payloadType()).isNull();
		});
	}

	@Test
	void oneContainerIsCreatedPerQueue() {
		this.runner.withBean(InvoiceJobs.class).run((context) -> {
			JobListenerRegistry registry = registry(context);
			assertThat(registry.getListenerContainers()).hasSize(2);
			assertThat(registry.getListenerContainer("mail").getJobNames()).containsExactlyInAnyOrder("send-invoice",
					"send-batch");
			JobListenerContainer fallback = registry.getListenerContainer("fallback");
			assertThat(fallback.getJobNames()).containsExactlyInAnyOrder("remind", "tick");
			assertThat(fallback.isRunning()).isFalse();
		});
	}

	@Test
	void beanWithoutJobsRegistersNothing() {
		this.runner.withBean(NoJobs.class).run((context) -> {
			assertThat(catalog(context).all()).isEmpty();
			assertThat(registry(context).getListenerContainers()).isEmpty();
		});
	}

	@Test
	void methodWithTwoPayloadParametersIsRejected() {
		this.runner.withBean("twoPayloadJobs", TwoPayloadJobs.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("Could not register @QueuedJob method send of bean 'twoPayloadJobs'")
				.hasMessageContaining("must take the payload and, optionally, a JobContext: no other parameters"));
	}

	@Test
	void duplicateJobNamesAreRejected() {
		this.runner.withBean(InvoiceJobs.class)
			.withBean(DuplicateJobs.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessage("Another job is already registered with name 'send-invoice' (queue 'mail'); "
						+ "job names must be unique"));
	}

	@Test
	void invalidAttributeValueIsRejected() {
		this.runner.withBean(PlaceholderJobs.class)
			.withPropertyValues("jobs.timeout=soon")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("Invalid attribute value 'soon' (from '${jobs.timeout:0}')"));
	}

	@Test
	void maxAttemptsAndMaxAttemptsStringTogetherAreRejected() {
		this.runner.withBean(BothAttemptsJobs.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("Could not register @QueuedJob method send")
				.hasMessageContaining("set either maxAttempts or maxAttemptsString, not both"));
	}

	@Test
	void zeroMaxAttemptsIsRejected() {
		this.runner.withBean(ZeroAttemptsJobs.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessage("Job 'never' must have maxAttempts of at least 1, not 0"));
	}

	@Test
	void invalidQueueNameIsRejectedAtStartup() {
		this.runner.withBean(BadQueueJobs.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("Invalid queue name 'orders{eu}': it contains '{'"));
	}

	@Test
	void jobsWithoutContainerFactoryFailWithClearMessage() {
		new ApplicationContextRunner().withUserConfiguration(JobQueueConfiguration.class)
			.withBean(InvoiceJobs.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessage("Could not create job listener containers: no JobListenerContainerFactory bean named "
						+ "'jobListenerContainerFactory' was found. Define one, or use Spring Boot's "
						+ "auto-configuration (io.redq:queue-starter)"));
	}

	@Test
	void noJobsNeedNoContainerFactory() {
		new ApplicationContextRunner().withUserConfiguration(JobQueueConfiguration.class)
			.withBean(NoJobs.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean(JobQueueConfigUtils.QUEUED_JOB_ANNOTATION_PROCESSOR_BEAN_NAME)
				.hasBean(JobQueueConfigUtils.JOB_LISTENER_REGISTRY_BEAN_NAME));
	}

	@Test
	void configurersRegisterJobsTheApplicationOnlyDispatches() {
		this.runner
			.withBean(JobListenerConfigurer.class,
					() -> (registry) -> registry.getJobCatalog()
						.register(new JobDefinition("remote", "elsewhere", 1, Duration.ZERO, JobBackoff.DEFAULT, null)))
			.run((context) -> {
				assertThat(catalog(context).find("remote").queue()).isEqualTo("elsewhere");
				assertThat(registry(context).hasHandlers()).isFalse();
			});
	}

	private static JobListenerRegistry registry(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(JobQueueConfigUtils.JOB_LISTENER_REGISTRY_BEAN_NAME, JobListenerRegistry.class);
	}

	private static JobCatalog catalog(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(JobQueueConfigUtils.JOB_CATALOG_BEAN_NAME, JobCatalog.class);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableJobQueue
	static class EnableJobQueueConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableJobQueue
	static class JobQueueConfiguration {

		@Bean
		JobDefaults jobDefaults() {
			return DEFAULTS;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ContainerFactoryConfiguration {

		@Bean(JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME)
		JobListenerContainerFactory jobListenerContainerFactory() {
			// never started, so nothing connects to Redis
			LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory();
			RedisJobQueueOperations operations = new RedisJobQueueOperations(connectionFactory, QueueScripts.load(),
					new Keyspace("redq"));
			JobListenerContainerFactory factory = new JobListenerContainerFactory(operations.getListenerOperations(),
					JsonMapper.shared());
			factory.getContainerProperties().setAutoStartup(false);
			return factory;
		}

	}

	record Invoice(String number) {
	}

	static class InvoiceJobs {

		@QueuedJob(queue = "mail")
		void sendInvoice(Invoice invoice) {
		}

		@QueuedJob(queue = "mail")
		void sendBatch(List<Invoice> invoices, JobContext context) {
		}

		@QueuedJob(maxAttempts = 5)
		void remind(JobContext context, String customer) {
		}

		@QueuedJob
		void tick(JobContext context) {
		}

		void notAJob(Invoice invoice) {
		}

	}

	static class PlaceholderJobs {

		@QueuedJob(name = "${jobs.name:placeholder-job}", queue = "${jobs.queue:from-default}",
				timeout = "${jobs.timeout:0}", maxAttemptsString = "${jobs.attempts:2}",
				backoff = @Backoff(delay = "${jobs.delay:1s}", multiplier = "${jobs.multiplier:2}",
						maxDelay = "${jobs.max-delay:1m}", jitter = "${jobs.jitter:0}"))
		void send(Invoice invoice) {
		}

	}

	static class TwoPayloadJobs {

		@QueuedJob
		void send(Invoice invoice, String note) {
		}

	}

	static class DuplicateJobs {

		@QueuedJob(name = "send-invoice")
		void other(Invoice invoice) {
		}

	}

	static class AcronymJobs {

		@QueuedJob
		void exportCSVReport(JobContext context) {
		}

		@QueuedJob
		void sendSMS(JobContext context) {
		}

		@QueuedJob
		void fetchURLList(JobContext context) {
		}

	}

	static class BothAttemptsJobs {

		@QueuedJob(maxAttempts = 5, maxAttemptsString = "7")
		void send(Invoice invoice) {
		}

	}

	static class BadQueueJobs {

		@QueuedJob(name = "ship", queue = "orders{eu}")
		void ship(String order) {
		}

	}

	static class ZeroAttemptsJobs {

		@QueuedJob(maxAttempts = 0)
		void never(Invoice invoice) {
		}

	}

	static class NoJobs {

		void send(Invoice invoice) {
		}

	}

}
