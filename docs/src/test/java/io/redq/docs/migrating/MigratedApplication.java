package io.redq.docs.migrating;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * The application that the "Migrating" examples run in.
 *
 * @author Redq team
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ OrderTimeouts.class, AuctionTimers.class, NewsletterJobs.class, PodcastJobs.class, Orders.class,
		Auctions.class, Mailer.class, Transcoder.class })
class MigratedApplication {

}
