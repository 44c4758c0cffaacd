package io.redq.sample.images;

import java.time.Duration;
import java.util.List;

import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.ChainStatus.StepState;
import io.redq.queue.core.DeadJob;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.testkit.JobTester;
import io.redq.sample.SampleShopTest;
import io.redq.sample.images.Publication.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Image publications: a chain of resize, watermark and publish, whose steps run one after
 * the other; a step that dies ends the chain, the later steps never run, and the
 * on-failure job marks the publication broken once.
 *
 * @author Redq team
 */
@SampleShopTest
class ImagePublicationIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	@Autowired
	private Images images;

	@Autowired
	private Publications publications;

	@Autowired
	private JobQueueOperations operations;

	@LocalServerPort
	private int port;

	private JobTester jobs;

	private RestTestClient http;

	@BeforeEach
	void setUp(@Autowired ApplicationContext context) {
		this.jobs = JobTester.of(context);
		this.http = RestTestClient.bindToServer().baseUrl("http://127.0.0.1:" + this.port).build();
	}

	@Test
	void aGoodImageIsPublishedEachStepAfterTheOneBefore() {
		Image image = this.images.upload("sneakers.jpg");
		Publication started = publish(image.id());
		assertThat(started.chain()).isNotNull();
		String chainId = started.chain().id();
		await().atMost(DEADLINE).untilAsserted(() -> {
			Publication publication = publication(image.id());
			assertThat(publication.status()).isEqualTo(Status.PUBLISHED);
			assertThat(publication.chain().state()).isEqualTo(ChainStatus.State.SUCCEEDED);
		});
		Publication published = publication(image.id());
		assertThat(published.url()).isEqualTo("https://cdn.shop.example/images/sneakers.jpg");
		assertThat(published.error()).isNull();
		assertThat(published.chain().steps()).extracting(ChainStatus.Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.SUCCEEDED, StepState.SUCCEEDED);
		// publishing again changes nothing: the same chain, no step runs again
		assertThat(publish(image.id()).chain().id()).isEqualTo(chainId);
		this.jobs.awaitDrained("images", DEADLINE);
		List<Publications.Step> steps = this.publications.steps(image.id());
		assertThat(steps).extracting(Publications.Step::step).containsExactly("resize", "watermark", "publish");
		for (int i = 1; i < steps.size(); i++) {
			assertThat(steps.get(i).startedAt()).isAfterOrEqualTo(steps.get(i - 1).finishedAt());
		}
	}

	@Test
	void anImageThatCannotBeWatermarkedEndsBrokenAndItsLaterStepsNeverRun() {
		Image image = this.images.upload("poster-cmyk.jpg");
		publish(image.id());
		await().atMost(DEADLINE).untilAsserted(() -> {
			Publication publication = publication(image.id());
			assertThat(publication.status()).isEqualTo(Status.BROKEN);
			assertThat(publication.chain().state()).isEqualTo(ChainStatus.State.FAILED);
		});
		this.jobs.awaitDrained("images", DEADLINE);
		Publication broken = publication(image.id());
		assertThat(broken.url()).isNull();
		assertThat(broken.error()).isEqualTo(broken.chain().reason()).contains("step 2");
		assertThat(broken.chain().steps()).extracting(ChainStatus.Step::state)
			.containsExactly(StepState.SUCCEEDED, StepState.DEAD, StepState.CANCELLED);
		DeadJob watermark = this.operations.deadJob("images", broken.chain().steps().get(1).id());
		assertThat(watermark).isNotNull();
		assertThat(watermark.attempts()).isEqualTo(3);
		assertThat(watermark.error()).contains("Cannot watermark poster-cmyk.jpg: CMYK images are not supported");
		// publish never ran, and the on-failure job ran once
		assertThat(this.publications.steps(image.id())).extracting(Publications.Step::step)
			.containsExactly("resize", "report-broken");
	}

	@Test
	void publishingAnUnknownImageIsRefused() {
		this.http.put().uri("/images/{id}/publication", Long.MAX_VALUE).exchange().expectStatus().isNotFound();
		this.http.get().uri("/images/{id}/publication", Long.MAX_VALUE).exchange().expectStatus().isNotFound();
	}

	private Publication publish(long imageId) {
		return this.http.put()
			.uri("/images/{id}/publication", imageId)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Publication.class)
			.returnResult()
			.getResponseBody();
	}

	private Publication publication(long imageId) {
		return this.http.get()
			.uri("/images/{id}/publication", imageId)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Publication.class)
			.returnResult()
			.getResponseBody();
	}

}
