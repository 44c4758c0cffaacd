package io.redq.queue.dashboard;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.function.ToLongFunction;

import com.sun.net.httpserver.HttpServer;
import io.redq.queue.config.JobListenerRegistry;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.JobStatus;
import io.redq.queue.inspect.InstanceHeartbeat;
import io.redq.queue.inspect.JobQueueInspector;
import io.redq.queue.inspect.QueueStatistics;
import io.redq.queue.redis.RedisJobQueueOperations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ContextConfiguration;
import io.redq.queue.test.RedisServerInitializer;

import static io.redq.queue.dashboard.DashboardTestApplication.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard in a real browser (headless Chromium) against an application whose
 * listener runs on a real Redis, with writes allowed.
 *
 * @author Redq team
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.dashboard.read-only=false", "redq.completed.max-size=100",
				"redq.remote-jobs.report.queue=reports" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class DashboardBrowserIntegrationTests extends AbstractBrowserIntegrationTests {

	private static final String XSS = "fail <script>window.injected=1</script>\"><img src=x onerror=window.injected=2>";

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private RedisJobQueueOperations operations;

	@Autowired
	private DashboardTestJobs jobs;

	@Autowired
	private InstanceHeartbeat heartbeat;

	@Autowired
	private JobListenerRegistry listeners;

	@Autowired
	private JobQueueInspector inspector;

	@AfterEach
	void resume() {
		this.operations.resume(QUEUE);
	}

	@Test
	void overviewCountsFollowDispatches() throws IOException {
		// this instance's heartbeat, which Redis lost when the test emptied it
		this.heartbeat.beat();
		this.operations.pause(QUEUE);
		open("");
		await().atMost(DEADLINE).until(() -> cell("ready").equals("0"));
		for (int i = 0; i < 3; i++) {
			this.dispatcher.dispatch("work", "job " + i);
		}
		await().atMost(DEADLINE).until(() -> cell("ready").equals("3"));
		assertThat(text("tr[data-queue='ops'] td.state")).isEqualTo("paused");
		screenshot("overview");
	}

	@Test // GH-40
	void theQueueListDrawsTheLastHourKeptInRedisFromTheFirstLoadOfThePage() {
		int started = this.jobs.started.get();
		for (int i = 0; i < 3; i++) {
			this.dispatcher.dispatch("work", "done " + i);
		}
		this.dispatcher.dispatch("work", "fail at once");
		await().atMost(DEADLINE)
			.until(() -> this.jobs.started.get() == started + 4 && lastHour(QueueStatistics.Bucket::completed) == 3
					&& lastHour(QueueStatistics.Bucket::failed) == 1);
		// a page that saw none of it
		open("");
		String chart = "svg.spark[data-queue='ops']";
		assertThat(attribute(chart, "data-completed")).isEqualTo("3");
		assertThat(attribute(chart, "data-failed")).isEqualTo("1");
		assertThat(script("return document.querySelector(arguments[0]).textContent;", chart + " title"))
			.isEqualTo("Last hour, per minute: 3 completed, 1 failed attempts, 1 dead");
		String[] completed = attribute(chart + " polyline.completed", "points").split(" ");
		assertThat(completed).as("a place for each minute of the hour").hasSize(60);
		// raised at this minute or the one before it, if the minute turned since the jobs
		// ran
		double baseline = Double.parseDouble(completed[0].split(",")[1]);
		assertThat(Double.parseDouble(completed[59].split(",")[1]) + Double.parseDouble(completed[58].split(",")[1]))
			.isLessThan(2 * baseline);
	}

	@Test // GH-40
	void aQueueThatNoLiveInstanceConsumesReadsNotConsumed() {
		this.heartbeat.beat();
		open("");
		// reports: this application only dispatches to it, and no instance consumes it
		await().atMost(DEADLINE).until(() -> text("tr[data-queue='reports'] td.state").equals("not consumed"));
		// the counts are shared for a second: a test before may have paused ops
		await().atMost(DEADLINE).until(() -> text("tr[data-queue='ops'] td.state").equals("running"));
		open("queue/reports/ready");
		await().atMost(DEADLINE).until(() -> text("#queue-not-consumed").equals("not consumed"));
		open("queue/ops/ready");
		assertThat(find("#queue-not-consumed")).isEmpty();
	}

	@Test
	void findsAJobByIdAndATimerByKey() {
		this.operations.pause(QUEUE);
		this.dispatcher.dispatch(JobRequest.of("work", "x").id("order-4711").build());
		this.dispatcher.schedule("work", "auction-42", Instant.now().plus(Duration.ofHours(1)));
		open("search");
		search("id", "order-4711");
		await().atMost(DEADLINE).until(() -> find("#search-results tr[data-id='order-4711']").size() == 1);
		search("id", "auction-42");
		await().atMost(DEADLINE)
			.until(() -> find("#search-results tbody tr").size() == 1
					&& find("#search-results tr[data-id*='auction-42']").size() == 1);
		assertThat(find("#search-results tr[data-id*='auction-42']").get(0).getAttribute("data-id"))
			.isEqualTo("work:auction-42");
		click("#search-results tr[data-id*='auction-42'] a");
		await().atMost(DEADLINE).until(() -> text("dd[data-field='state']").equals("DELAYED"));
	}

	@Test
	void showsADeadJobsErrorAsTextAndRetriesItToCompletion() throws IOException {
		this.dispatcher.dispatch(JobRequest.of("work", XSS).id("poison").build());
		this.dispatcher.dispatch(JobRequest.of("work", "once more").id("flaky").build());
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).dead() == 2);
		open("queue/ops/dead");
		await().atMost(DEADLINE).until(() -> find("#jobs tr[data-id='poison']").size() == 1);
		open("job/ops/poison");
		await().atMost(DEADLINE).until(() -> !text("#job-error").isEmpty());
		assertThat(text("#job-error")).startsWith("java.lang.IllegalStateException: " + XSS);
		assertThat(text("#job-trace")).startsWith("java.lang.IllegalStateException: " + XSS)
			.contains("at io.redq.queue.dashboard.DashboardTestJobs.work(DashboardTestJobs.java:");
		assertThat(text("#job-payload")).contains("<script>");
		assertThat(find("#view img")).as("markup from the payload and error is shown as text").isEmpty();
		assertThat(script("return window.injected")).isNull();
		screenshot("dead-job");

		open("job/ops/flaky");
		await().atMost(DEADLINE).until(() -> text("#job-error").contains("IllegalStateException: once more"));
		click("#job-retry");
		await().atMost(DEADLINE).until(() -> text("dd[data-field='state']").equals("COMPLETED"));
	}

	@Test
	void aPausedQueueStartsNoJob() throws IOException {
		open("queue/ops/ready");
		click("#queue-pause");
		await().atMost(DEADLINE).until(() -> !find("#queue-paused").isEmpty());
		int started = this.jobs.started.get();
		for (int i = 0; i < 3; i++) {
			this.dispatcher.dispatch("work", "waits " + i);
		}
		await().atMost(DEADLINE).until(() -> text("#queue-ready").equals("3"));
		await().during(Duration.ofSeconds(2))
			.atMost(DEADLINE)
			.until(() -> this.jobs.started.get() == started && text("#queue-reserved").equals("0"));
		String perMinute = statisticsLine();
		click("#queue-resume");
		await().atMost(DEADLINE).until(() -> this.jobs.started.get() == started + 3);
		await().atMost(DEADLINE).until(() -> text("#queue-ready").equals("0"));
		// the chart of the counts every instance keeps in Redis moves
		await().atMost(DEADLINE).until(() -> text("[data-total='completed']").equals("3 completed"));
		assertThat(statisticsLine()).isNotEqualTo(perMinute);
		screenshot("queue");
	}

	@Test
	void listsThisRunningInstanceWithTheQueueItConsumes() throws IOException {
		// the heartbeat Redis lost when the test emptied it, without waiting for the next
		this.heartbeat.beat();
		open("instances");
		String row = "#instances tr[data-instance='" + this.heartbeat.getId() + "']";
		await().atMost(DEADLINE).until(() -> find(row).size() == 1);
		String queue = row + " li[data-queue='ops']";
		assertThat(text(queue + " .concurrency")).isEqualTo(
				Integer.toString(this.listeners.getListenerContainer(QUEUE).getContainerProperties().getConcurrency()));
		assertThat(text(queue + " .in-flight")).isEqualTo("0");
		assertThat(text(queue)).doesNotContain("stopped");
		assertThat(text(row + " td.heartbeat")).isNotEmpty();
		screenshot("instances");
	}

	@Test // GH-35
	void aFilteredDeadTabReadsItsJobsWhenFilteredNotAtEveryPoll() {
		this.dispatcher.dispatch(JobRequest.of("work", "fail one").id("dead-1").build());
		this.dispatcher.dispatch(JobRequest.of("work", "fail two").id("dead-2").build());
		await().atMost(DEADLINE).until(() -> this.operations.stats(QUEUE).dead() == 2);
		open("queue/ops/dead");
		// the view before it may still be drawn, and a poll may draw the form again
		await().atMost(DEADLINE).ignoreException(StaleElementReferenceException.class).untilAsserted(() -> {
			WebElement filter = this.browser.findElement(By.id("filter-error"));
			filter.clear();
			filter.sendKeys("fail one");
			this.browser.findElement(By.id("filter-go")).click();
		});
		await().atMost(DEADLINE).until(() -> find("#jobs tr[data-id]").size() == 1);
		script("document.activeElement.blur();");
		// three polls later
		for (int i = 0; i < 3; i++) {
			String updated = text("#status");
			await().atMost(DEADLINE).until(() -> !text("#status").equals(updated));
		}
		assertThat(text("#jobs tr[data-id]")).contains("dead-1");
		assertThat(script("return performance.getEntriesByType('resource')"
				+ ".filter((e) => e.name.includes('/api/queues/ops/dead?')).length;"))
			.isEqualTo(1L);
	}

	@Test // GH-35
	void aFormOrAScriptOfAnotherSiteChangesNothing() throws IOException {
		this.operations.pause(QUEUE);
		this.dispatcher.dispatch(JobRequest.of("work", "stays").id("stays").build());
		String queue = "http://localhost:" + this.port + "/redq/api/queues/ops/";
		// another origin: another port, and 127.0.0.1 where the dashboard is on localhost
		HttpServer site = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		site.createContext("/", (exchange) -> {
			String form = switch (exchange.getRequestURI().getPath()) {
				case "/resume" -> "<form method='post' action='" + queue + "resume'></form>";
				case "/purge" -> "<form method='post' action='" + queue + "purge'>"
						+ "<input type='hidden' name='confirm' value='ops'></form>";
				default -> "";
			};
			byte[] page = ("<!DOCTYPE html><html><body>" + form
					+ "<script>const f = document.forms[0]; if (f) { f.submit(); }</script></body></html>")
				.getBytes(StandardCharsets.UTF_8);
			exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
			exchange.sendResponseHeaders(200, page.length);
			try (OutputStream body = exchange.getResponseBody()) {
				body.write(page);
			}
		});
		site.start();
		try {
			String other = "http://127.0.0.1:" + site.getAddress().getPort();
			for (String action : new String[] { "resume", "purge" }) {
				this.browser.get(other + "/" + action);
				await().atMost(DEADLINE)
					.until(() -> this.browser.getCurrentUrl().startsWith(queue + action) && !text("body").isEmpty());
				assertThat(text("body")).contains("Refused a change that did not come from the dashboard's page");
			}
			// a script with the header: the browser asks first (CORS), and the dashboard
			// allows no other origin
			this.browser.get(other + "/");
			Object fetched = ((JavascriptExecutor) this.browser).executeAsyncScript(
					"const done = arguments[arguments.length - 1];" + "fetch(arguments[0], {method: 'POST', "
							+ "headers: {'X-Redq-Dashboard': '1'}}).then((r) => done('answered ' + r.status), "
							+ "() => done('blocked'));",
					queue + "resume");
			assertThat(fetched).isEqualTo("blocked");
			// and one that does not ask first: it sends neither the header nor a body
			Object sent = ((JavascriptExecutor) this.browser)
				.executeAsyncScript("const done = arguments[arguments.length - 1];"
						+ "fetch(arguments[0], {method: 'POST', mode: 'no-cors'}).then(() => done('sent'), "
						+ "() => done('blocked'));", queue + "resume");
			assertThat(sent).isEqualTo("sent");
		}
		finally {
			site.stop(0);
		}
		assertThat(this.operations.isPaused(QUEUE)).isTrue();
		assertThat(this.operations.status(QUEUE, "stays").state()).isEqualTo(JobStatus.State.READY);
	}

	private void search(String by, String text) {
		new Select(this.browser.findElement(By.id("search-by"))).selectByValue(by);
		WebElement input = this.browser.findElement(By.id("search-text"));
		input.clear();
		input.sendKeys(text);
		this.browser.findElement(By.id("search-go")).click();
	}

	private String cell(String column) {
		return text("tr[data-queue='ops'] td." + column);
	}

	private String statisticsLine() {
		return attribute("#per-minute polyline.completed", "points");
	}

	private long lastHour(ToLongFunction<QueueStatistics.Bucket> count) {
		return this.inspector.minutes(QUEUE).stream().mapToLong(count).sum();
	}

}
