package io.redq.queue.autoconfigure.endpoint;

import java.time.Duration;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.queue.redis.RedisJobQueueOperations;
import io.redq.queue.redis.ReservedJob;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.BeforeEach;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.web.servlet.client.RestTestClient;

import static io.redq.queue.autoconfigure.endpoint.EndpointTestApplication.QUEUE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the endpoint's HTTP tests share, whatever access their application allows: its
 * dispatcher and operations, a client of the endpoint, and an empty Redis before each
 * test.
 *
 * @author Redq team
 */
abstract class EndpointHttpSupport {

	@LocalServerPort
	private int port;

	@Autowired
	JobDispatcher dispatcher;

	@Autowired
	RedisJobQueueOperations operations;

	RestTestClient client;

	@BeforeEach
	void setUpClient() {
		RedisServerInitializer.sharedServer().flushAll();
		this.client = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port + "/actuator/redq").build();
	}

	/**
	 * Kill a job: dispatch it, reserve it and fail its only attempt.
	 * @param id the job id
	 */
	void kill(String id) {
		this.dispatcher.dispatch(JobRequest.of("work", "payload " + id).id(id).build());
		ReservedJob job = this.operations.getListenerOperations()
			.reserve(QUEUE, 1, Duration.ofSeconds(30))
			.jobs()
			.get(0);
		assertThat(job.id()).isEqualTo(id);
		this.operations.getListenerOperations().getLeaseOperations().fail(QUEUE, job.lease(), "error " + id, null);
	}

}
