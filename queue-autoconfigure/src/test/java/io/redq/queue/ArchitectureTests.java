package io.redq.queue;

import java.util.regex.Pattern;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.redq.queue.autoconfigure.JobQueueAutoConfiguration;
import io.redq.queue.autoconfigure.JobQueueMetricsAutoConfiguration;
import io.redq.queue.core.RedisJobDispatcher;
import io.redq.queue.listener.JobListenerContainer;
import io.redq.queue.lock.RedisLockService;
import io.redq.queue.support.micrometer.MicrometerJobMetrics;
import io.redq.queue.support.micrometer.QueueMeterBinder;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.PropertyMapper;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Architecture rules: only {@code io.redq.queue.autoconfigure} may use Spring Boot, so
 * that the library packages can become a module of their own; only the metrics classes
 * may use the optional micrometer-core.
 *
 * @author Redq team
 */
class ArchitectureTests {

	private static final ArchRule LIBRARY_DOES_NOT_USE_SPRING_BOOT = noClasses().that()
		.resideInAPackage("io.redq.queue..")
		.and()
		.resideOutsideOfPackage("io.redq.queue.autoconfigure..")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("org.springframework.boot..")
		.because("only io.redq.queue.autoconfigure may use Spring Boot");

	private static final ArchRule ONLY_METRICS_USE_MICROMETER_CORE = noClasses().that()
		.resideInAPackage("io.redq.queue..")
		.and()
		.doNotHaveFullyQualifiedName(MicrometerJobMetrics.class.getName())
		.and()
		.haveNameNotMatching(Pattern.quote(QueueMeterBinder.class.getName()) + "(\\$.*)?")
		.and()
		.doNotHaveFullyQualifiedName(JobQueueMetricsAutoConfiguration.class.getName())
		.should()
		.dependOnClassesThat()
		.resideInAPackage("io.micrometer.core..")
		.because("micrometer-core is optional: only the metrics classes, used when it is present, may need it");

	private static final JavaClasses MAIN_CLASSES = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
		.importPackages("io.redq.queue");

	@Test
	void importsTheMainClassesOfEveryPackage() {
		assertThat(MAIN_CLASSES.contain(RedisJobDispatcher.class)).isTrue();
		assertThat(MAIN_CLASSES.contain(JobListenerContainer.class)).isTrue();
		assertThat(MAIN_CLASSES.contain(RedisLockService.class)).isTrue();
		assertThat(MAIN_CLASSES.contain(JobQueueAutoConfiguration.class)).isTrue();
		assertThat(MAIN_CLASSES.contain(ArchitectureTests.class)).as("test classes are not imported").isFalse();
	}

	@Test
	void libraryPackagesDoNotDependOnSpringBoot() {
		LIBRARY_DOES_NOT_USE_SPRING_BOOT.check(MAIN_CLASSES);
	}

	@Test
	void onlyTheMetricsClassesDependOnMicrometerCore() {
		ONLY_METRICS_USE_MICROMETER_CORE.check(MAIN_CLASSES);
	}

	@Test
	void ruleReportsALibraryClassThatUsesSpringBoot() {
		EvaluationResult result = LIBRARY_DOES_NOT_USE_SPRING_BOOT
			.evaluate(new ClassFileImporter().importClasses(UsesSpringBoot.class));
		assertThat(result.hasViolation()).isTrue();
		assertThat(result.getFailureReport().toString()).contains(UsesSpringBoot.class.getName(),
				PropertyMapper.class.getName());
	}

	/**
	 * A class in a library package (this one) that uses Spring Boot.
	 */
	static class UsesSpringBoot {

		PropertyMapper mapper() {
			return PropertyMapper.get();
		}

	}

}
