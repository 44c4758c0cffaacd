package io.redq.queue.dashboard;

import java.util.List;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.JavascriptExecutor;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ContextConfiguration;

import static io.redq.queue.dashboard.DashboardTestApplication.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The read-only dashboard (its default) in a real browser: it offers no change, and a
 * change forged from the page is refused.
 *
 * @author Redq team
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class DashboardReadOnlyBrowserIntegrationTests extends AbstractBrowserIntegrationTests {

	private static final List<String> CHANGES = List.of("Retry", "Delete", "Pause", "Resume", "Purge", "Cancel",
			"Trigger", "Reschedule");

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private RedisJobQueueOperations operations;

	@Test
	void offersNoChangeAndRefusesAForgedOne() {
		this.dispatcher.dispatch(JobRequest.of("work", "fail here").id("dead-one").build());
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).dead() == 1);
		for (String view : List.of("queue/ops/ready", "queue/ops/dead", "job/ops/dead-one")) {
			open(view);
			await().atMost(DEADLINE).until(() -> !find("#view h1").isEmpty());
			List<?> buttons = (List<?>) script(
					"return [...document.querySelectorAll('button')].map((b) => b.innerText);");
			assertThat(buttons).map(String.class::cast)
				.noneMatch((label) -> CHANGES.stream().anyMatch(label::startsWith));
		}
		assertThat(text("#mode")).isEqualTo("read-only");
		Object status = ((JavascriptExecutor) this.browser)
			.executeAsyncScript("const done = arguments[arguments.length - 1];"
					+ "fetch('api/queues/ops/pause', {method: 'POST'}).then((r) => done(r.status));");
		assertThat(status).isEqualTo(403L);
		assertThat(this.operations.isPaused(QUEUE)).isFalse();
	}

}
