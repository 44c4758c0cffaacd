package io.redq.queue.dashboard;

import java.util.List;
import java.util.Map;

import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.BeforeEach;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.test.web.servlet.client.RestTestClient.ResponseSpec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the dashboard's HTTP tests share: an empty Redis before each test, the queue
 * operations, and a client of the dashboard's path on the application's port.
 *
 * @author Redq team
 */
abstract class AbstractDashboardHttpIntegrationTests {

	@LocalServerPort
	int port;

	@Autowired
	RedisJobQueueOperations operations;

	RestTestClient client;

	@BeforeEach
	void emptyRedisAndConnect() {
		RedisServerInitializer.sharedServer().flushAll();
		this.client = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port + "/redq").build();
	}

	ResponseSpec get(String path) {
		return this.client.get().uri(path).exchange();
	}

	/**
	 * Post a change as the dashboard's page does: with the dashboard's header and the
	 * Origin of the page.
	 * @param path the path below the dashboard's
	 * @return the response
	 */
	ResponseSpec post(String path) {
		return this.client.post().uri(path).headers(this::fromThePage).exchange();
	}

	/**
	 * Add the headers a change from the dashboard's page carries.
	 * @param headers the headers of a request
	 */
	void fromThePage(HttpHeaders headers) {
		headers.set(DashboardGuard.CHANGE_HEADER, "1");
		headers.setOrigin("http://localhost:" + this.port);
	}

	/**
	 * Read a page of one of the dashboard's lists, as its page does.
	 * @param list the list's path below {@code /api}, also the key of its rows: batches
	 * or chains
	 * @param offset how many rows to skip
	 * @param count how many rows to read
	 * @return the rows
	 */
	@SuppressWarnings("unchecked")
	List<Map<String, Object>> page(String list, int offset, int count) {
		Map<String, Object> page = this.client.get()
			.uri("/api/" + list + "?offset=" + offset + "&count=" + count)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Map.class)
			.returnResult()
			.getResponseBody();
		return (List<Map<String, Object>>) page.get(list);
	}

	/**
	 * Assert that a change posted by another site is refused: a form, told what was
	 * wrong, and a script that sends the dashboard's header.
	 * @param path the path of the change below the dashboard's
	 */
	void assertRefusedFromAnotherSite(String path) {
		this.client.post()
			.uri(path)
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.header(HttpHeaders.ORIGIN, "http://evil.example")
			.exchange()
			.expectStatus()
			.isForbidden()
			.expectBody()
			.jsonPath("$.error")
			.value((String error) -> assertThat(error).contains("Origin: http://evil.example")
				.contains(DashboardGuard.CHANGE_HEADER));
		this.client.post()
			.uri(path)
			.header(DashboardGuard.CHANGE_HEADER, "1")
			.header(HttpHeaders.ORIGIN, "http://evil.example")
			.exchange()
			.expectStatus()
			.isForbidden();
	}

}
