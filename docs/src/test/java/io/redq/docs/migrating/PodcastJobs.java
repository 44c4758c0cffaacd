package io.redq.docs.migrating;

// The "Migrating" example for Laravel users, which the page quotes whole: a job class's
// $tries, $backoff and $timeout, its middleware and its dispatch options, as a handler's
// attributes and a request's options.
// tag::class[]
import java.time.Duration;

import io.redq.queue.annotation.Backoff;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;

import org.springframework.stereotype.Service;

@Service
class PodcastJobs {

	private final JobDispatcher dispatcher;

	private final Transcoder transcoder;

	PodcastJobs(JobDispatcher dispatcher, Transcoder transcoder) {
		this.dispatcher = dispatcher;
		this.transcoder = transcoder;
	}

	// was:
	// ProcessPodcast::dispatch($podcast)->onQueue('podcasts')->delay(now()->addMinutes(10))
	// with ShouldBeUnique and uniqueId() returning the podcast's id
	void podcastUploaded(Podcast podcast) {
		this.dispatcher.dispatch(JobRequest.of("process-podcast", podcast)
			.id("podcast-" + podcast.id(), DuplicatePolicy.KEEP)
			.delay(Duration.ofMinutes(10))
			.build());
	}

	// was: public $tries = 5; public $timeout = 120; public $backoff = [10, 30, 90, 270];
	// and middleware() returning new WithoutOverlapping($this->podcast->showId)
	@QueuedJob(name = "process-podcast", queue = "podcasts", maxAttempts = 5, timeout = "120s",
			backoff = @Backoff(delay = "10s", multiplier = "3", maxDelay = "270s"), exclusiveKey = "showId()")
	void process(Podcast podcast) {
		this.transcoder.transcode(podcast);
	}

	// was: middleware() returning new RateLimited('feeds'), with
	// RateLimiter::for('feeds', ...)
	// allowing 30 a minute
	@QueuedJob(name = "refresh-feed", queue = "podcasts", rateLimit = "30/1m")
	void refreshFeed(long showId) {
		this.transcoder.refreshFeed(showId);
	}

}
// end::class[]
