package io.redq.queue.annotation;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.redq.queue.config.JobCatalog;
import io.redq.queue.config.JobListenerContainerFactory;
import io.redq.queue.config.JobQueueConfigUtils;
import io.redq.queue.core.JobStatus;
import io.redq.queue.core.QueueStats;
import io.redq.queue.listener.JobContext;
import io.redq.queue.redis.RedisJobDispatcher;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.RedisQueueExtension;
import io.redq.queue.test.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests of {@link DeadJobHandler} methods, called once when a job of their name dies, on
 * a real Redis.
 *
 * @author Redq team
 */
@WithRedis
@ExtendWith(RedisQueueExtension.class)
class DeadJobHandlerIntegrationTests {

	private static final String QUEUE = "deaths";

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

	private RedisJobQueueOperations operations;

	private JobListenerContainerFactory containerFactory;

	@BeforeEach
	void setUp(RedisJobQueueOperations operations) {
		this.operations = operations;
		this.containerFactory = new JobListenerContainerFactory(operations.getListenerOperations(),
				JsonMapper.shared());
		this.containerFactory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(1));
	}

	@AfterEach
	void tearDown() throws Exception {
		while (!this.closeables.isEmpty()) {
			this.closeables.pop().close();
		}
	}

	@Test
	void theHandlerIsCalledOnceWhenTheJobDiesWithItsPayloadAndLastError() {
		AnnotationConfigApplicationContext context = context(InvoiceJobs.class, InvoiceDeaths.class);
		InvoiceJobs jobs = context.getBean(InvoiceJobs.class);
		InvoiceDeaths deaths = context.getBean(InvoiceDeaths.class);
		RedisJobDispatcher dispatcher = dispatcher(context);
		String id = dispatcher.dispatch("send-invoice", new Invoice("INV-1")).id();
		String sent = dispatcher.dispatch("send-invoice", new Invoice("OK-1")).id();
		await().atMost(DEADLINE).until(() -> !deaths.calls.isEmpty() && jobs.sent.contains("OK-1"));
		assertThat(jobs.attempts).filteredOn((attempt) -> attempt.startsWith("INV-1"))
			.containsExactly("INV-1 1", "INV-1 2");
		assertThat(deaths.calls).containsExactly("INV-1 " + id + " attempt 2 DEAD: cannot send INV-1 (attempt 2)");
		assertThat(this.operations.status(QUEUE, sent).state()).isNotEqualTo(JobStatus.State.DEAD);
		// another job of the same name dies: called again, once
		String next = dispatcher.dispatch("send-invoice", new Invoice("INV-2")).id();
		await().atMost(DEADLINE).until(() -> deaths.calls.size() == 2);
		assertThat(deaths.calls.get(1)).isEqualTo("INV-2 " + next + " attempt 2 DEAD: cannot send INV-2 (attempt 2)");
	}

	@Test
	void aHandlerThatThrowsLeavesTheJobDeadAndTheContainerRunning() {
		AnnotationConfigApplicationContext context = context(InvoiceJobs.class, FailingDeaths.class);
		InvoiceJobs jobs = context.getBean(InvoiceJobs.class);
		RedisJobDispatcher dispatcher = dispatcher(context);
		String id = dispatcher.dispatch("send-invoice", new Invoice("INV-1")).id();
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).dead() == 1);
		dispatcher.dispatch("send-invoice", new Invoice("OK-2"));
		await().atMost(DEADLINE).until(() -> jobs.sent.contains("OK-2"));
		assertThat(context.getBean(FailingDeaths.class).called).containsExactly(id);
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).equals(new QueueStats(0, 0, 0, 1)));
	}

	@Test
	void aHandlerOfAJobThisApplicationDoesNotRunFailsAtStartup() {
		assertThatExceptionOfType(BeanInitializationException.class)
			.isThrownBy(() -> context(InvoiceJobs.class, UnknownJobDeaths.class))
			.withMessageContaining("Could not register @DeadJobHandler method died of bean "
					+ "'deadJobHandlerIntegrationTests.UnknownJobDeaths': this application has no @QueuedJob method "
					+ "for job 'unknown': a dead-job handler runs where the job runs");
	}

	@Test
	void aHandlerOfAnotherPayloadTypeFailsAtStartup() {
		assertThatExceptionOfType(BeanInitializationException.class)
			.isThrownBy(() -> context(InvoiceJobs.class, WrongPayloadDeaths.class))
			.withMessageContaining(
					"takes a java.lang.String, but job 'send-invoice' takes a " + Invoice.class.getName());
	}

	@Test
	void twoHandlersOfOneJobFailAtStartup() {
		assertThatExceptionOfType(BeanInitializationException.class)
			.isThrownBy(() -> context(InvoiceJobs.class, InvoiceDeaths.class, FailingDeaths.class))
			.withMessageContaining("Job 'send-invoice' has two dead-job handlers");
	}

	private AnnotationConfigApplicationContext context(Class<?>... classes) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(JobQueueConfigUtils.JOB_LISTENER_CONTAINER_FACTORY_BEAN_NAME,
				JobListenerContainerFactory.class, () -> this.containerFactory);
		context.registerBean(RedisJobQueueOperations.class, () -> this.operations);
		context.register(JobQueueConfiguration.class);
		context.register(classes);
		context.refresh();
		this.closeables.push(context);
		return context;
	}

	private RedisJobDispatcher dispatcher(AnnotationConfigApplicationContext context) {
		RedisJobDispatcher dispatcher = new RedisJobDispatcher(this.operations, context.getBean(JobCatalog.class),
				JsonMapper.shared());
		this.closeables.push(dispatcher::stop);
		return dispatcher;
	}

	record Invoice(String number) {
	}

	@Configuration(proxyBeanMethods = false)
	@EnableJobQueue
	static class JobQueueConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	static class InvoiceJobs {

		final List<String> attempts = new CopyOnWriteArrayList<>();

		final List<String> sent = new CopyOnWriteArrayList<>();

		@QueuedJob(name = "send-invoice", queue = QUEUE, maxAttempts = 2, backoff = @Backoff(delay = "0"))
		void send(Invoice invoice, JobContext context) {
			this.attempts.add(invoice.number() + " " + context.getAttempt());
			if (invoice.number().startsWith("INV")) {
				throw new IllegalStateException(
						"cannot send " + invoice.number() + " (attempt " + context.getAttempt() + ")");
			}
			this.sent.add(invoice.number());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class InvoiceDeaths {

		final List<String> calls = new CopyOnWriteArrayList<>();

		private final RedisJobQueueOperations operations;

		InvoiceDeaths(RedisJobQueueOperations operations) {
			this.operations = operations;
		}

		@DeadJobHandler("send-invoice")
		void invoiceNotSent(Throwable error, Invoice invoice, JobContext job) {
			this.calls.add(invoice.number() + " " + job.getId() + " attempt " + job.getAttempt() + " "
					+ this.operations.status(QUEUE, job.getId()).state() + ": " + error.getMessage());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FailingDeaths {

		final List<String> called = new CopyOnWriteArrayList<>();

		@DeadJobHandler("send-invoice")
		void died(JobContext job) {
			this.called.add(job.getId());
			throw new IllegalStateException("dead-job handler failed");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownJobDeaths {

		@DeadJobHandler("unknown")
		void died(Throwable error) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WrongPayloadDeaths {

		@DeadJobHandler("send-invoice")
		void died(String payload) {
		}

	}

}
