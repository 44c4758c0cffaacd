package io.redq.queue.dashboard;

import java.time.Duration;
import java.util.Map;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.web.servlet.client.EntityExchangeResult;
import org.springframework.test.web.servlet.client.RestTestClient;

import static io.redq.queue.dashboard.DashboardTestApplication.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard behind Spring Security, set up as its documentation shows: only users
 * with role {@code REDQ} reach it, and each change needs the CSRF token the page is
 * given.
 *
 * @author Redq team
 */
@SpringBootTest(classes = DashboardSecurityIntegrationTests.SecuredApplication.class,
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "redq.dashboard.enabled=true", "redq.dashboard.read-only=false",
				"redq.listener.auto-startup=false", "redq.dashboard.show-payloads=when-authorized",
				"redq.dashboard.payload-roles=PAYLOADS" })
@ContextConfiguration(initializers = RedisServerInitializer.class)
class DashboardSecurityIntegrationTests extends AbstractDashboardHttpIntegrationTests {

	@Autowired
	private JobDispatcher dispatcher;

	@Test
	void onlyUsersWithTheRoleReachTheDashboard() {
		this.client.get().uri("/api/queues").exchange().expectStatus().isUnauthorized();
		this.client.get()
			.uri("/api/queues")
			.headers((headers) -> headers.setBasicAuth("guest", "guest"))
			.exchange()
			.expectStatus()
			.isForbidden();
		this.client.get()
			.uri("/api/queues")
			.headers((headers) -> headers.setBasicAuth("ops", "ops"))
			.exchange()
			.expectStatus()
			.isOk();
	}

	@Test
	@SuppressWarnings({ "rawtypes", "unchecked" })
	void aChangeWithoutTheCsrfTokenIsRefusedAndOneWithItIsMade() {
		EntityExchangeResult<Map> session = this.client.get()
			.uri("/api/session")
			.headers((headers) -> headers.setBasicAuth("ops", "ops"))
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Map.class)
			.returnResult();
		Map<String, String> csrf = (Map<String, String>) session.getResponseBody().get("csrf");
		assertThat(csrf).containsKeys("header", "token");
		String cookie = session.getResponseHeaders().getFirst(HttpHeaders.SET_COOKIE).split(";")[0];
		this.client.post()
			.uri("/api/queues/ops/pause")
			.headers((headers) -> headers.setBasicAuth("ops", "ops"))
			.headers(this::fromThePage)
			.header(HttpHeaders.COOKIE, cookie)
			.exchange()
			.expectStatus()
			.isForbidden();
		assertThat(this.operations.isPaused(QUEUE)).isFalse();
		this.client.post()
			.uri("/api/queues/ops/pause")
			.headers((headers) -> headers.setBasicAuth("ops", "ops"))
			.headers(this::fromThePage)
			.header(HttpHeaders.COOKIE, cookie)
			.header(csrf.get("header"), csrf.get("token"))
			.exchange()
			.expectStatus()
			.isOk();
		assertThat(this.operations.isPaused(QUEUE)).isTrue();
		this.client.get()
			.uri("/api/actions")
			.headers((headers) -> headers.setBasicAuth("ops", "ops"))
			.exchange()
			.expectBody()
			.json("""
					[{"action": "pause", "queue": "ops", "principal": "ops"}]""");
	}

	@Test // GH-35
	void showsPayloadsAndHeadersOnlyToUsersWithAPayloadRole() {
		this.dispatcher.dispatch(JobRequest.of("work", "card 4111")
			.id("t1")
			.header("customer", "alice")
			.delay(Duration.ofHours(1))
			.build());
		this.client.get()
			.uri("/api/queues/ops/job?id=t1")
			.headers((headers) -> headers.setBasicAuth("ops", "ops"))
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.json("""
					{"id": "t1", "job": "work", "envelope": {"job": "work", "payload": "******",
						"headers": {"customer": "******"}}}""");
		this.client.get()
			.uri("/api/queues/ops/jobs?state=delayed")
			.headers((headers) -> headers.setBasicAuth("ops", "ops"))
			.exchange()
			.expectBody()
			.jsonPath("$.jobs[0].envelope.payload")
			.isEqualTo("******");
		this.client.get()
			.uri("/api/queues/ops/job?id=t1")
			.headers((headers) -> headers.setBasicAuth("admin", "admin"))
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.json("""
					{"envelope": {"payload": "card 4111", "headers": {"customer": "alice"}}}""");
	}

	/**
	 * The application of the test, with the security of the dashboard's documentation.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(DashboardTestJobs.class)
	static class SecuredApplication {

		// tag::security[]
		@Bean
		SecurityFilterChain redqDashboardSecurity(HttpSecurity http) throws Exception {
			// the dashboard's path (redq.dashboard.path): only operators reach it; Spring
			// Security's CSRF protection stays on, and the page sends the token
			http.securityMatcher("/redq/**")
				.authorizeHttpRequests((requests) -> requests.anyRequest().hasRole("REDQ"))
				.httpBasic(Customizer.withDefaults());
			return http.build();
		}
		// end::security[]

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(User.withUsername("ops").password("{noop}ops").roles("REDQ").build(),
					User.withUsername("admin").password("{noop}admin").roles("REDQ", "PAYLOADS").build(),
					User.withUsername("guest").password("{noop}guest").roles("USER").build());
		}

	}

}
