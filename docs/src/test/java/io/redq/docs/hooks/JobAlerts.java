package io.redq.docs.hooks;

// The "Interceptors and events" example of application events, which the page quotes whole:
// dead jobs are reported, and a latch opens once the containers consume.
// tag::class[]
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import io.redq.queue.event.ContainersConsumingEvent;
import io.redq.queue.event.JobDeadEvent;

import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

@Component
class JobAlerts {

	final List<String> dead = new CopyOnWriteArrayList<>();

	final CountDownLatch consuming = new CountDownLatch(1);

	@EventListener
	void jobDied(JobDeadEvent event) {
		this.dead.add(event.getJobName() + " " + event.getJobId() + ": " + event.getException().getMessage());
	}

	@EventListener
	void containersConsume(ContainersConsumingEvent event) {
		this.consuming.countDown();
	}

}
// end::class[]
