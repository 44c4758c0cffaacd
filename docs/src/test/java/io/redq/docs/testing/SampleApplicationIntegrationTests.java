package io.redq.docs.testing;

// tag::class[]
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ContextConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
// end::class[]

/**
 * The "Testing your jobs" example of {@link RedisServerInitializer}, on the application
 * of this package; the page quotes it.
 *
 * @author Redq team
 */
// tag::class[]
@SpringBootTest
@ContextConfiguration(initializers = RedisServerInitializer.class)
class SampleApplicationIntegrationTests {

	@Autowired
	private JobQueueOperations operations;

	@Test
	void readsTheQueuesOfTheSharedServer() {
		assertThat(this.operations.isPaused("mail")).isFalse();
	}

}
// end::class[]
