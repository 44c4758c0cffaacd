package io.redq.docs.migrating;

import java.time.Duration;
import java.time.Instant;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobStatus;
import io.redq.queue.recurring.RecurringJobs;
import io.redq.queue.testkit.JobTester;
import io.redq.queue.testkit.RedisServerTestConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The "Migrating" examples run on a real Redis, so that the page shows code that does
 * what it says.
 *
 * @author Redq team
 */
@SpringBootTest(classes = MigratedApplication.class)
@Import(RedisServerTestConfiguration.class)
class MigratingIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	@Autowired
	private OrderTimeouts orderTimeouts;

	@Autowired
	private AuctionTimers auctionTimers;

	@Autowired
	private NewsletterJobs newsletterJobs;

	@Autowired
	private PodcastJobs podcastJobs;

	@Autowired
	private Orders orders;

	@Autowired
	private Auctions auctions;

	@Autowired
	private Mailer mailer;

	@Autowired
	private Transcoder transcoder;

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private JobQueueOperations operations;

	private JobTester jobs;

	@BeforeEach
	void jobTester(@Autowired ApplicationContext context) {
		this.jobs = JobTester.of(context);
	}

	@Test
	void anUnpaidOrderIsCancelledAndAPaidOneIsNot() {
		this.orderTimeouts.orderPlaced("o-1");
		this.orderTimeouts.orderPlaced("o-2");
		this.orderTimeouts.orderPaid("o-2");
		assertThat(this.operations.status("orders", "cancel-unpaid:o-2").state()).isEqualTo(JobStatus.State.NONE);
		this.jobs.makeDue("orders", "cancel-unpaid:o-1");
		this.jobs.awaitDrained("orders", DEADLINE);
		assertThat(this.orders.cancelled).containsExactly("o-1");
	}

	@Test
	void aLateBidMovesTheAuctionsEnd() {
		Instant endsAt = Instant.now().plus(Duration.ofMinutes(1));
		this.auctionTimers.auctionOpened(42, endsAt);
		this.auctionTimers.bidPlaced(42, endsAt);
		assertThat(this.dispatcher.findTimer("close-auction", 42))
			.hasValueSatisfying((timer) -> assertThat(timer.dueAt()).isAfter(endsAt.plus(Duration.ofSeconds(50))));
		this.jobs.makeTimerDue("close-auction", 42);
		this.jobs.awaitDrained("auctions", DEADLINE);
		assertThat(this.auctions.closed).containsExactly(42L);
	}

	@Test
	void theJobsOfLambdasRunAsNamedJobs(@Autowired RecurringJobs recurringJobs) {
		this.newsletterJobs.userSignedUp(7);
		this.newsletterJobs.issuePlanned("2026-48", Instant.now().plus(Duration.ofDays(1)));
		this.jobs.makeDue("mail", "issue-2026-48");
		this.jobs.awaitDrained("mail", DEADLINE);
		assertThat(this.mailer.sent).anyMatch((sent) -> sent.startsWith("welcome 7 as ")).contains("issue 2026-48");
		assertThat(recurringJobs.get("weekly-digest").schedule().getZone()).hasToString("Europe/Paris");
	}

	@Test
	void aPodcastIsProcessedOnceAndFeedsAreRefreshed() {
		Podcast podcast = new Podcast(5, 1);
		this.podcastJobs.podcastUploaded(podcast);
		this.podcastJobs.podcastUploaded(podcast);
		this.jobs.makeDue("podcasts", "podcast-5");
		this.dispatcher.dispatch("refresh-feed", 1L);
		this.jobs.awaitDrained("podcasts", DEADLINE);
		assertThat(this.transcoder.done).containsExactlyInAnyOrder("podcast 5", "feed 1");
	}

}
