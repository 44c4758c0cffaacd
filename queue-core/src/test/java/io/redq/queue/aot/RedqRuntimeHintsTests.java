package io.redq.queue.aot;

import java.util.ArrayList;
import java.util.List;

import io.redq.queue.annotation.DeadJobHandler;
import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.listener.JobContext;
import io.redq.queue.redis.JobEnvelope;
import io.redq.queue.script.QueueScripts;
import io.redq.queue.script.RecurringScripts;
import io.redq.queue.script.ScriptDefinition;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the runtime hints of native images: {@link RedqRuntimeHints} and those of
 * {@code @QueuedJob} methods.
 *
 * @author Redq team
 */
class RedqRuntimeHintsTests {

	@Test
	void everyScriptAndTheEnvelopeAreRegistered() {
		RuntimeHints hints = new RuntimeHints();
		new RedqRuntimeHints().registerHints(hints, getClass().getClassLoader());
		List<ScriptDefinition> scripts = new ArrayList<>(QueueScripts.DEFINITIONS);
		scripts.addAll(RecurringScripts.DEFINITIONS);
		assertThat(scripts).isNotEmpty()
			.allSatisfy((script) -> assertThat(
					RuntimeHintsPredicates.resource().forResource("io/redq/queue/script/" + script.name() + ".lua"))
				.accepts(hints));
		assertThat(RuntimeHintsPredicates.resource().forResource("io/redq/queue/script/common.lua")).accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("io/redq/queue/lock/acquire.lua")).accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("io/redq/queue/redis/batch.lua")).accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("io/redq/queue/redis/instance-heartbeat.lua"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(JobEnvelope.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(JobEnvelope.class, "job")).accepts(hints);
	}

	@Test
	void registrarIsListedInAotFactories() {
		assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(RedqRuntimeHints.class);
	}

	@Test
	void queuedJobMethodsAreInvokableAndTheirPayloadsBindable() {
		RuntimeHints hints = new RuntimeHints();
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, InvoiceJobs.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(InvoiceJobs.class, "sendInvoice"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Invoice.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Invoice.class, "number")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(JobContext.class)).rejects(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(InvoiceJobs.class, "notAJob")).rejects(hints);
	}

	@Test
	void deadJobHandlerMethodsAreInvokable() {
		RuntimeHints hints = new RuntimeHints();
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, InvoiceJobs.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(InvoiceJobs.class, "invoiceNotSent"))
			.accepts(hints);
	}

	static class InvoiceJobs {

		@QueuedJob(name = "send-invoice")
		void sendInvoice(Invoice invoice, JobContext context) {
		}

		void notAJob(Invoice invoice) {
		}

		@DeadJobHandler("send-invoice")
		void invoiceNotSent(Invoice invoice, Throwable error) {
		}

	}

	record Invoice(String number, long cents) {
	}

}
