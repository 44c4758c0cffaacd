package io.redq.queue.autoconfigure.endpoint;

import io.redq.queue.core.CompletedJob;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.ImportRuntimeHints;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JobQueueEndpointRuntimeHints}.
 *
 * @author Redq team
 */
class JobQueueEndpointRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	@Test
	void everyDescriptorAndWhatItHoldsIsBoundToJson() {
		new JobQueueEndpointRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
		assertThat(JobQueueDescriptors.class.getDeclaredClasses()).filteredOn(Class::isRecord)
			.isNotEmpty()
			.allSatisfy((descriptor) -> assertThat(RuntimeHintsPredicates.reflection().onType(descriptor))
				.accepts(this.hints));
		// behind the OperationResponseBody of the page of dead or completed jobs
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(JobQueueDescriptors.DeadJobsDescriptor.class, "jobs")).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(JobQueueDescriptors.DeadJobDescriptor.class, "diedAt")).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(CompletedJob.class)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(CompletedJob.class, "id"))
			.accepts(this.hints);
	}

	@Test
	void theEndpointsAutoConfigurationImportsThem() {
		assertThat(JobQueueEndpointAutoConfiguration.class.getAnnotation(ImportRuntimeHints.class).value())
			.containsExactly(JobQueueEndpointRuntimeHints.class);
	}

}
