package io.redq.sample.load;

import java.time.Duration;

import io.redq.sample.SampleShopTest;
import io.redq.sample.load.LoadGenerator.LoadStatus;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The load generator: started and stopped over HTTP, it runs every kind of step of its
 * mix without a failure.
 *
 * @author Redq team
 */
@SampleShopTest
class LoadGeneratorIntegrationTests {

	@Autowired
	private LoadGenerator generator;

	@LocalServerPort
	private int port;

	@Test
	void runsTheMixAtTheRateItIsGiven() {
		RestTestClient http = RestTestClient.bindToServer().baseUrl("http://127.0.0.1:" + this.port).build();
		http.put()
			.uri("/load?rate=100")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.rate")
			.isEqualTo(100);
		try {
			await().atMost(Duration.ofSeconds(60))
				.untilAsserted(() -> assertThat(this.generator.status().steps())
					.allSatisfy((kind, steps) -> assertThat(steps).as("steps of %s", kind).isPositive()));
		}
		finally {
			http.put().uri("/load?rate=0").exchange().expectStatus().isOk();
		}
		LoadStatus status = this.generator.status();
		assertThat(status.rate()).isZero();
		assertThat(status.failures())
			.allSatisfy((kind, failures) -> assertThat(failures).as("failures of %s", kind).isZero());
	}

	@Test
	void aRateOutOfRangeIsRefused() {
		RestTestClient http = RestTestClient.bindToServer().baseUrl("http://127.0.0.1:" + this.port).build();
		http.put()
			.uri("/load?rate=501")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.detail")
			.isEqualTo("The load rate must be between 0 (off) and 500 steps per second, but was 501");
		// a form cannot start it from another site
		http.post().uri("/load?rate=50").exchange().expectStatus().isEqualTo(405);
		assertThat(this.generator.status().rate()).isZero();
	}

}
