package io.redq.queue.redis;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.redq.queue.core.JobBackoff;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.QueueStats;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ParameterizedTypeReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests that a {@link RedisJobDispatcher} refuses a payload that the job's handler in
 * this application cannot take, before anything reaches a real Redis.
 *
 * @author Redq team
 */
class DispatchPayloadTypeIntegrationTests extends AbstractQueueIntegrationTests {

	private final JsonMapper jsonMapper = JsonMapper.shared();

	private RedisJobDispatcher dispatcher;

	@BeforeEach
	void setUp() {
		this.dispatcher = new RedisJobDispatcher(this.operations,
				TestJobDefinitions.of(job("greet", Greeting.class), job("bill", Invoice.class),
						job("close-auction", long.class), job("count", Integer.class),
						job("bill-all", new ParameterizedTypeReference<List<Invoice>>() {
						}.getType()), job("anything", Object.class), job("remote", null)),
				this.jsonMapper);
	}

	@AfterEach
	void tearDown() {
		this.dispatcher.stop();
	}

	@Test
	void aPayloadOfAnotherTypeFailsTheDispatchNamingTheJobAndBothTypes() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.dispatcher.dispatch("greet", 12345))
			.withMessage("Job 'greet' cannot take a payload of type java.lang.Integer: its handler takes a "
					+ Greeting.class.getName() + ". Dispatch a " + Greeting.class.getName()
					+ " (or a JsonNode, which the worker converts)");
		assertThatIllegalArgumentException().isThrownBy(() -> this.dispatcher.dispatch("bill", new Order("O-1", 3)))
			.withMessageStartingWith("Job 'bill' cannot take a payload of type " + Order.class.getName()
					+ ": its handler takes a " + Invoice.class.getName());
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void aBatchWithOneWrongPayloadSendsNothing() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.dispatcher.dispatchAll(
				List.of(JobRequest.of("greet", new Greeting("Ada")).build(), JobRequest.of("greet", "Ada").build())));
		assertThat(this.operations.stats(QUEUE)).isEqualTo(new QueueStats(0, 0, 0, 0));
	}

	@Test
	void aTimerKeyIsCheckedAsThePayload() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.dispatcher.schedule("close-auction", "42", Instant.now().plusSeconds(60)))
			.withMessageStartingWith("Job 'close-auction' cannot take a payload of type java.lang.String: its "
					+ "handler takes a long");
		assertThatIllegalArgumentException().isThrownBy(() -> this.dispatcher.dispatch("close-auction", null))
			.withMessage("Job 'close-auction' needs a payload: its handler takes a long, and the payload is null");
	}

	@Test
	void payloadsTheHandlerCanTakeAreDispatched() {
		this.dispatcher.dispatch("greet", new Greeting("Ada"));
		this.dispatcher.dispatch("greet", null);
		// JSON keeps no difference between number types
		this.dispatcher.schedule("close-auction", 42, Instant.now());
		this.dispatcher.dispatch("count", 7L);
		this.dispatcher.dispatch("bill-all", List.of(new Invoice("INV-1", 5)));
		this.dispatcher.dispatch("bill", this.jsonMapper.valueToTree(Map.of("number", "INV-2", "cents", 9)));
		this.dispatcher.dispatch("anything", new Order("O-2", 1));
		// handled by another application: checked on its worker
		this.dispatcher.dispatch("remote", new Order("O-3", 1));
		assertThat(this.operations.stats(QUEUE).ready()).isEqualTo(8);
	}

	private static JobDefinition job(String name, @Nullable Type payloadType) {
		return new JobDefinition(name, QUEUE, 3, Duration.ZERO, JobBackoff.DEFAULT, payloadType);
	}

	record Greeting(String name) {
	}

	record Invoice(String number, int cents) {
	}

	record Order(String number, int items) {
	}

}
