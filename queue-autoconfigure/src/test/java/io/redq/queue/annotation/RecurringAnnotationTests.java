package io.redq.queue.annotation;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.config.JobQueueConfigUtils;
import io.redq.queue.listener.JobContext;
import io.redq.queue.recurring.MissedTicks;
import io.redq.queue.recurring.RecurringJobDefinition;
import io.redq.queue.recurring.RecurringJobScheduler;
import io.redq.queue.recurring.RecurringSchedule;
import io.redq.queue.redis.Keyspace;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.script.RecurringScripts;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the {@link Recurring} part of {@link QueuedJobAnnotationBeanPostProcessor},
 * without Redis: the scheduler works on a connection factory that is never started, and
 * it does not start.
 *
 * @author Redq team
 */
class RecurringAnnotationTests {

	private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(JobQueueConfiguration.class);

	@Test
	void cronAndFixedRateJobsAreRegisteredWithTheScheduler() {
		this.runner.withBean(ReportJobs.class).run((context) -> {
			assertThat(scheduler(context).getDefinitions()).extracting(RecurringJobDefinition::name)
				.containsExactly("cleanup", "daily-report");
			RecurringJobDefinition report = definition(context, "daily-report");
			assertThat(report.schedule()).isEqualTo(RecurringSchedule.cron("0 0 6 * * MON-FRI", BERLIN));
			assertThat(report.missedTicks()).isEqualTo(MissedTicks.RUN_ONCE);
			assertThat(report.job()).isEqualTo(catalog(context).find("daily-report"));
			RecurringJobDefinition cleanup = definition(context, "cleanup");
			assertThat(cleanup.schedule()).isEqualTo(RecurringSchedule.fixedRate(Duration.ofSeconds(30)));
			assertThat(cleanup.missedTicks()).isEqualTo(MissedTicks.SKIP);
			assertThat(cleanup.job().queue()).isEqualTo("maintenance");
		});
	}

	@Test
	void cronWithoutZoneTakesTheSchedulersDefaultZone() {
		this.runner.withBean(NoZoneJobs.class)
			.run((context) -> assertThat(definition(context, "hourly").schedule())
				.isEqualTo(RecurringSchedule.cron("@hourly", RecurringJobScheduler.DEFAULT_ZONE)));
		this.runner.withBean(NoZoneJobs.class)
			.withPropertyValues("test.zone=Europe/Berlin")
			.run((context) -> assertThat(definition(context, "hourly").schedule())
				.isEqualTo(RecurringSchedule.cron("@hourly", BERLIN)));
	}

	@Test
	void placeholdersAreResolved() {
		this.runner.withBean(PlaceholderJobs.class)
			.withPropertyValues("report.cron=0 15 * * * *", "report.zone=Asia/Tokyo")
			.run((context) -> assertThat(definition(context, "placeholder").schedule())
				.isEqualTo(RecurringSchedule.cron("0 15 * * * *", ZoneId.of("Asia/Tokyo"))));
	}

	@Test
	void dashTurnsTheScheduleOffButKeepsTheJob() {
		this.runner.withBean(PlaceholderJobs.class).withPropertyValues("report.cron=-").run((context) -> {
			assertThat(scheduler(context).getDefinitions()).isEmpty();
			assertThat(catalog(context).find("placeholder")).isNotNull();
		});
	}

	@Test
	void withoutSchedulerTheJobIsAPlainJob() {
		new ApplicationContextRunner().withUserConfiguration(ContainerFactoryConfiguration.class)
			.withBean(ReportJobs.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(RecurringJobScheduler.class);
				assertThat(catalog(context).find("daily-report")).isNotNull();
			});
	}

	@Test
	void cronAndFixedRateTogetherAreRejected() {
		assertFailure(BothJobs.class, "@Recurring needs either cron or fixedRate");
	}

	@Test
	void neitherCronNorFixedRateIsRejected() {
		assertFailure(NeitherJobs.class, "@Recurring needs either cron or fixedRate");
	}

	@Test
	void zoneWithFixedRateIsRejected() {
		assertFailure(ZoneWithRateJobs.class, "@Recurring zone applies to cron only");
	}

	@Test
	void payloadOtherThanInstantIsRejected() {
		assertFailure(StringPayloadJobs.class,
				"a @Recurring job takes no payload or an Instant (the tick), not java.lang.String");
	}

	@Test
	void invalidCronIsRejected() {
		assertFailure(InvalidCronJobs.class, "Cron expression must consist of 6 fields");
	}

	@Test
	void unknownZoneIsRejected() {
		assertFailure(UnknownZoneJobs.class, "Invalid attribute value 'Mars/Olympus'");
	}

	@Test
	void recurringWithoutQueuedJobIsRejected() {
		this.runner.withBean("notAJob", RecurringOnlyJobs.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining(
						"Could not schedule @Recurring method tick of bean 'notAJob': it must also be annotated @QueuedJob"));
	}

	private void assertFailure(Class<?> jobs, String message) {
		this.runner.withBean("jobs", jobs)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("Could not register @QueuedJob method")
				.hasMessageContaining("of bean 'jobs'")
				.hasMessageContaining(message));
	}

	private static RecurringJobDefinition definition(AssertableApplicationContext context, String name) {
		return scheduler(context).getDefinitions()
			.stream()
			.filter((definition) -> definition.name().equals(name))
			.findFirst()
			.orElseThrow();
	}

	private static RecurringJobScheduler scheduler(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(RecurringJobScheduler.class);
	}

	private static JobCatalog catalog(AssertableApplicationContext context) {
		return context.getBean(JobQueueConfigUtils.JOB_CATALOG_BEAN_NAME, JobCatalog.class);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableJobQueue
	static class ContainerFactoryConfiguration {

		// never started, so nothing connects to Redis
		private final RedisJobQueueOperations operations = new RedisJobQueueOperations(new LettuceConnectionFactory(),
				QueueScripts.load(), new Keyspace("redq"));

		@Bean(JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME)
		JobListenerContainerFactory jobListenerContainerFactory() {
			JobListenerContainerFactory factory = new JobListenerContainerFactory(
					this.operations.getListenerOperations(), JsonMapper.shared());
			factory.getContainerProperties().setAutoStartup(false);
			return factory;
		}

		@Bean
		RedisJobQueueOperations jobQueueOperations() {
			return this.operations;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class JobQueueConfiguration extends ContainerFactoryConfiguration {

		@Bean
		RecurringJobScheduler recurringJobScheduler(RedisJobQueueOperations operations, JobCatalog catalog,
				Environment environment) {
			RecurringJobScheduler scheduler = new RecurringJobScheduler(operations, RecurringScripts.load(),
					new RedisJobDispatcher(operations, catalog, JsonMapper.shared()));
			scheduler.setDefaultZone(ZoneId.of(environment.getProperty("test.zone", "UTC")));
			scheduler.setAutoStartup(false);
			return scheduler;
		}

	}

	static class ReportJobs {

		@QueuedJob
		@Recurring(cron = "0 0 6 * * MON-FRI", zone = "Europe/Berlin")
		void dailyReport(Instant tick, JobContext context) {
		}

		@QueuedJob(queue = "maintenance")
		@Recurring(fixedRate = "30s", missedTicks = MissedTicks.SKIP)
		void cleanup() {
		}

		@QueuedJob
		void notRecurring(String payload) {
		}

	}

	static class NoZoneJobs {

		@QueuedJob
		@Recurring(cron = "@hourly")
		void hourly() {
		}

	}

	static class PlaceholderJobs {

		@QueuedJob
		@Recurring(cron = "${report.cron:0 0 * * * *}", zone = "${report.zone:}")
		void placeholder() {
		}

	}

	static class BothJobs {

		@QueuedJob
		@Recurring(cron = "@hourly", fixedRate = "1h")
		void both() {
		}

	}

	static class NeitherJobs {

		@QueuedJob
		@Recurring
		void neither() {
		}

	}

	static class ZoneWithRateJobs {

		@QueuedJob
		@Recurring(fixedRate = "1h", zone = "Europe/Berlin")
		void zoned() {
		}

	}

	static class StringPayloadJobs {

		@QueuedJob
		@Recurring(fixedRate = "1h")
		void text(String payload) {
		}

	}

	static class InvalidCronJobs {

		@QueuedJob
		@Recurring(cron = "0 * * * *")
		void unixCron() {
		}

	}

	static class UnknownZoneJobs {

		@QueuedJob
		@Recurring(cron = "@daily", zone = "Mars/Olympus")
		void martian() {
		}

	}

	static class RecurringOnlyJobs {

		@Recurring(fixedRate = "1h")
		void tick() {
		}

	}

}
