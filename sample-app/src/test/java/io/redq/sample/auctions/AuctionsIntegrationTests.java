package io.redq.sample.auctions;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.core.JobStatus;
import io.redq.queue.testkit.JobTester;
import io.redq.sample.ConflictException;
import io.redq.sample.SampleShopTest;
import io.redq.sample.auctions.Auction.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Auctions: a late bid pushes the end back and moves the timer; the end closes the
 * auction once, never early.
 *
 * @author Redq team
 */
@SampleShopTest
class AuctionsIntegrationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	@Autowired
	private AuctionService auctions;

	@Autowired
	private JobDispatcher dispatcher;

	@Autowired
	private JobQueueOperations operations;

	@Autowired
	private JdbcClient jdbc;

	private JobTester jobs;

	@BeforeEach
	void jobTester(@Autowired ApplicationContext context) {
		this.jobs = JobTester.of(context);
	}

	@Test
	void aBidInTheLastTenSecondsPushesTheEndBack() {
		Auction auction = this.auctions.open("Signed vinyl", Duration.ofSeconds(5));
		Instant beforeBid = Instant.now();
		Auction bid = this.auctions.bid(auction.id(), "ada@auctions.example", new BigDecimal("50.00"));
		assertThat(bid.endsAt()).isAfterOrEqualTo(beforeBid.plus(AuctionService.ANTI_SNIPING))
			.isAfter(auction.endsAt());
		// the timer moves after the commit, off the committing thread
		await().atMost(DEADLINE)
			.untilAsserted(() -> assertThat(
					this.dispatcher.findTimer(AuctionService.CLOSE_AUCTION, auction.id()).orElseThrow().dueAt())
				.isEqualTo(bid.endsAt().truncatedTo(ChronoUnit.MILLIS)));
	}

	@Test
	void anEarlyBidLeavesTheEnd() {
		Auction auction = this.auctions.open("Old map", Duration.ofMinutes(5));
		Auction bid = this.auctions.bid(auction.id(), "bob@auctions.example", new BigDecimal("20.00"));
		assertThat(bid.endsAt()).isEqualTo(auction.endsAt());
		assertThatExceptionOfType(ConflictException.class)
			.isThrownBy(() -> this.auctions.bid(auction.id(), "carol@auctions.example", new BigDecimal("20.00")))
			.withMessage("A bid on auction " + auction.id() + " must be above 20.00");
	}

	@Test
	void theEndClosesOnceAndNeverEarly() throws Exception {
		Auction auction = this.auctions.open("Pocket watch", Duration.ofMinutes(5));
		this.auctions.bid(auction.id(), "dan@auctions.example", new BigDecimal("75.00"));
		String timer = AuctionService.CLOSE_AUCTION + ":" + auction.id();

		// fired early (the end moved after the timer was due): still open, and the timer
		// is set again for the end
		this.jobs.makeTimerDue(AuctionService.CLOSE_AUCTION, auction.id());
		await().atMost(DEADLINE).untilAsserted(() -> {
			JobStatus status = this.operations.status("auctions", timer);
			assertThat(status.state()).isEqualTo(JobStatus.State.DELAYED);
			assertThat(status.at()).isEqualTo(auction.endsAt().truncatedTo(ChronoUnit.MILLIS));
		});
		assertThat(this.auctions.find(auction.id()).status()).isEqualTo(Status.OPEN);

		// the five minutes pass
		this.jdbc.sql("UPDATE auction SET ends_at = :now WHERE id = :id")
			.param("now", Instant.now())
			.param("id", auction.id())
			.update();
		this.jobs.makeTimerDue(AuctionService.CLOSE_AUCTION, auction.id());
		this.jobs.awaitCompleted("auctions", timer, DEADLINE);
		Auction closed = this.auctions.find(auction.id());
		assertThat(closed.status()).isEqualTo(Status.CLOSED);
		assertThat(closed.closedAt()).isAfterOrEqualTo(closed.endsAt());
		assertThat(mailsTo("dan@auctions.example")).containsExactly("You won Pocket watch for 75.00");

		// the timer runs again, as after a worker died before its acknowledgement
		this.jobs.run(AuctionService.CLOSE_AUCTION, auction.id());
		assertThat(this.auctions.find(auction.id()).closedAt()).isEqualTo(closed.closedAt());
		assertThat(mailsTo("dan@auctions.example")).hasSize(1);
		assertThatExceptionOfType(ConflictException.class)
			.isThrownBy(() -> this.auctions.bid(auction.id(), "eve@auctions.example", new BigDecimal("80.00")))
			.withMessage("Auction " + auction.id() + " has ended");
	}

	@Test
	void theTimerClosesTheAuctionAtItsEnd() {
		Auction auction = this.auctions.open("Postcard", Duration.ofSeconds(1));
		await().atMost(DEADLINE)
			.untilAsserted(() -> assertThat(this.auctions.find(auction.id()).status()).isEqualTo(Status.CLOSED));
		assertThat(this.auctions.find(auction.id()).closedAt()).isAfterOrEqualTo(auction.endsAt());
	}

	private List<String> mailsTo(String recipient) {
		return this.jdbc.sql("SELECT subject FROM sent_mail WHERE recipient = :recipient")
			.param("recipient", recipient)
			.query(String.class)
			.list();
	}

}
