package io.redq.queue.support.micrometer;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.common.docs.KeyName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the contexts and default conventions of {@link JobObservation}.
 *
 * @author Redq team
 */
class JobObservationConventionTests {

	private static final ObservedJob JOB = new ObservedJob("mail", "send-invoice", "42");

	@Test
	void senderContextWritesTheTraceContextIntoTheJobHeaders() {
		Map<String, String> headers = new LinkedHashMap<>(Map.of("tenant", "acme"));
		JobDispatchSenderContext context = new JobDispatchSenderContext(headers, JOB);
		context.getSetter().set(context.getCarrier(), "traceparent", "00-abc-def-01");
		assertThat(headers).containsOnly(Map.entry("tenant", "acme"), Map.entry("traceparent", "00-abc-def-01"));
	}

	@Test
	void receiverContextReadsTheTraceContextFromTheJobHeaders() {
		JobProcessReceiverContext context = process();
		assertThat(context.getGetter().get(context.getCarrier(), "traceparent")).isEqualTo("00-abc-def-01");
		assertThat(context.getGetter().get(context.getCarrier(), "tracestate")).isNull();
	}

	@Test
	void dispatchConventionGivesEveryDocumentedKey() {
		JobDispatchSenderContext context = new JobDispatchSenderContext(new LinkedHashMap<>(), JOB);
		DefaultJobDispatchObservationConvention convention = DefaultJobDispatchObservationConvention.INSTANCE;
		assertThat(convention.getName()).isEqualTo("redq.dispatcher");
		assertThat(convention.getContextualName(context)).isEqualTo("publish mail");
		assertThat(convention.getLowCardinalityKeyValues(context)).containsExactlyInAnyOrder(
				KeyValue.of("messaging.system", "redq"), KeyValue.of("messaging.operation", "publish"),
				KeyValue.of("messaging.destination.name", "mail"), KeyValue.of("redq.job.name", "send-invoice"));
		assertThat(convention.getHighCardinalityKeyValues(context))
			.containsExactly(KeyValue.of("messaging.message.id", "42"));
		assertThat(keys(convention.getLowCardinalityKeyValues(context)))
			.containsExactlyInAnyOrder(names(JobObservation.DISPATCH.getLowCardinalityKeyNames()));
		assertThat(keys(convention.getHighCardinalityKeyValues(context)))
			.containsExactlyInAnyOrder(names(JobObservation.DISPATCH.getHighCardinalityKeyNames()));
	}

	@Test
	void processConventionGivesEveryDocumentedKey() {
		JobProcessReceiverContext context = process();
		DefaultJobProcessObservationConvention convention = DefaultJobProcessObservationConvention.INSTANCE;
		assertThat(convention.getName()).isEqualTo("redq.listener");
		assertThat(convention.getContextualName(context)).isEqualTo("process mail");
		assertThat(convention.getLowCardinalityKeyValues(context)).containsExactlyInAnyOrder(
				KeyValue.of("messaging.system", "redq"), KeyValue.of("messaging.operation", "process"),
				KeyValue.of("messaging.destination.name", "mail"), KeyValue.of("redq.job.name", "send-invoice"));
		assertThat(convention.getHighCardinalityKeyValues(context))
			.containsExactlyInAnyOrder(KeyValue.of("messaging.message.id", "42"), KeyValue.of("redq.job.attempt", "2"));
		assertThat(keys(convention.getLowCardinalityKeyValues(context)))
			.containsExactlyInAnyOrder(names(JobObservation.PROCESS.getLowCardinalityKeyNames()));
		assertThat(keys(convention.getHighCardinalityKeyValues(context)))
			.containsExactlyInAnyOrder(names(JobObservation.PROCESS.getHighCardinalityKeyNames()));
	}

	@Test
	void conventionsSupportOnlyTheirOwnContext() {
		JobDispatchSenderContext dispatch = new JobDispatchSenderContext(new LinkedHashMap<>(), JOB);
		JobProcessReceiverContext process = process();
		assertThat(DefaultJobDispatchObservationConvention.INSTANCE.supportsContext(dispatch)).isTrue();
		assertThat(DefaultJobDispatchObservationConvention.INSTANCE.supportsContext(process)).isFalse();
		assertThat(DefaultJobProcessObservationConvention.INSTANCE.supportsContext(process)).isTrue();
		assertThat(DefaultJobProcessObservationConvention.INSTANCE.supportsContext(dispatch)).isFalse();
	}

	private static JobProcessReceiverContext process() {
		return new JobProcessReceiverContext(Map.of("traceparent", "00-abc-def-01"), JOB, 2);
	}

	private static String[] keys(KeyValues keyValues) {
		return keyValues.stream().map(KeyValue::getKey).toArray(String[]::new);
	}

	private static String[] names(KeyName[] keyNames) {
		return Arrays.stream(keyNames).map(KeyName::asString).toArray(String[]::new);
	}

}
