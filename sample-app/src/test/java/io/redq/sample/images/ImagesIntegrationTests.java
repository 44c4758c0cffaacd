package io.redq.sample.images;

import java.time.Duration;

import io.redq.queue.core.DeadJob;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.testkit.JobTester;
import io.redq.sample.SampleShopTest;
import io.redq.sample.images.Image.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Images: a flaky image is retried and gets its thumbnail; a corrupt one fails every
 * attempt, ends dead, and its dead-job handler marks it failed.
 *
 * @author Redq team
 */
@SampleShopTest
class ImagesIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	@Autowired
	private Images images;

	@Autowired
	private JobQueueOperations operations;

	private JobTester jobs;

	@BeforeEach
	void jobTester(@Autowired ApplicationContext context) {
		this.jobs = JobTester.of(context);
	}

	@Test
	void aFlakyImageIsRetried() {
		Image image = this.images.upload("holiday-flaky.jpg");
		this.jobs.awaitCompleted("images", "thumbnail-" + image.id(), DEADLINE);
		assertThat(this.images.find(image.id()))
			.isEqualTo(new Image(image.id(), "holiday-flaky.jpg", Status.DONE, "thumb-holiday-flaky.jpg", null));
	}

	@Test
	void aCorruptImageEndsDeadAndIsMarkedFailed() {
		Image image = this.images.upload("scan-corrupt.png");
		String job = "thumbnail-" + image.id();
		this.jobs.awaitDrained("images", DEADLINE);
		DeadJob dead = this.operations.deadJob("images", job);
		assertThat(dead).isNotNull();
		assertThat(dead.attempts()).isEqualTo(3);
		assertThat(dead.error()).contains("Cannot decode scan-corrupt.png: not an image (simulated)");
		// the dead-job handler runs right after the job is recorded dead
		await().atMost(DEADLINE)
			.untilAsserted(() -> assertThat(this.images.find(image.id()).status()).isEqualTo(Status.FAILED));
		assertThat(this.images.find(image.id()).error())
			.isEqualTo("Cannot decode scan-corrupt.png: not an image (simulated)");
	}

}
