package io.redq.queue;

import java.util.regex.Pattern;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.redq.queue.listener.JobListenerContainer;
import io.redq.queue.lock.RedisLockService;
import io.redq.queue.metrics.MicrometerJobMetrics;
import io.redq.queue.metrics.QueueMeterBinder;
import io.redq.queue.redis.BatchKeys;
import io.redq.queue.redis.QueueKeys;
import io.redq.queue.redis.QueueStore;
import io.redq.queue.redis.RedisJobDispatcher;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Architecture rules of the core module: it does not use Spring Boot, only the metrics
 * classes use the optional micrometer-core, the API in {@code core} does not depend on
 * its Redis implementation, the Redis layer knows none of the components it serves, the
 * observation support uses no other Redq package, only the Redis layer reaches a queue's
 * keys and inspection reads Redis through it, and the packages are free of cycles.
 *
 * @author Redq team
 */
class ArchitectureTests {

	private static final ArchRule CORE_DOES_NOT_USE_SPRING_BOOT = noClasses().that()
		.resideInAPackage("io.redq.queue..")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("org.springframework.boot..")
		.because("queue-core is usable from a plain Spring application; Boot wiring belongs in queue-autoconfigure");

	private static final ArchRule ONLY_METRICS_USE_MICROMETER_CORE = noClasses().that()
		.resideInAPackage("io.redq.queue..")
		.and()
		.doNotHaveFullyQualifiedName(MicrometerJobMetrics.class.getName())
		.and()
		.haveNameNotMatching(Pattern.quote(QueueMeterBinder.class.getName()) + "(\\$.*)?")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("io.micrometer.core..")
		.because("micrometer-core is optional: only the metrics classes, used when it is present, may need it");

	private static final ArchRule API_DOES_NOT_DEPEND_ON_ITS_REDIS_IMPLEMENTATION = noClasses().that()
		.resideInAPackage("io.redq.queue.core..")
		.should()
		.dependOnClassesThat()
		.resideInAPackage("io.redq.queue.redis..")
		.because("the API does not depend on its implementation: applications code against the interfaces, and "
				+ "only their configuration names the Redis classes");

	private static final ArchRule PACKAGES_ARE_FREE_OF_CYCLES = slices().matching("io.redq.queue.(*)..")
		.should()
		.beFreeOfCycles();

	private static final ArchRule REDIS_LAYER_KNOWS_NO_COMPONENT = noClasses().that()
		.resideInAPackage("io.redq.queue.redis..")
		.and()
		.doNotHaveFullyQualifiedName(RedisJobDispatcher.class.getName())
		.and()
		.doNotHaveFullyQualifiedName("io.redq.queue.redis.ObservationDispatchInterceptor")
		.should()
		.dependOnClassesThat()
		.resideInAnyPackage("io.redq.queue.annotation..", "io.redq.queue.config..", "io.redq.queue.listener..",
				"io.redq.queue.recurring..", "io.redq.queue.lock..", "io.redq.queue.support..")
		.because("the Redis layer serves the containers, the scheduler and the locks, and knows none of them; "
				+ "only the dispatcher takes part in the lifecycle, and it and the interceptor that observes its "
				+ "dispatches in observations");

	private static final ArchRule ONLY_THE_REDIS_LAYER_REACHES_THE_KEYS = noClasses().that()
		.resideOutsideOfPackage("io.redq.queue.redis..")
		.should()
		.dependOnClassesThat()
		.haveFullyQualifiedName(QueueKeys.class.getName())
		.orShould()
		.dependOnClassesThat()
		.haveFullyQualifiedName(BatchKeys.class.getName())
		.orShould()
		.callMethod(QueueStore.class, "getTemplate")
		.because("only the Redis layer turns a queue into its keys and reads or writes them, inspection included "
				+ "(see Keyspace and QueueReader), so that how a queue is laid out in Redis changes there alone");

	private static final ArchRule INSPECTION_READS_REDIS_THROUGH_THE_REDIS_LAYER = noClasses().that()
		.resideInAPackage("io.redq.queue.inspect..")
		.should()
		.dependOnClassesThat()
		.resideInAnyPackage("org.springframework.data.redis..", "io.lettuce..")
		.because("inspection asks redis/ for raw data (QueueReader, QueueScan, InstanceRecords) and turns it into "
				+ "its model, so that a queue read in shards later changes redis/ alone");

	private static final ArchRule OBSERVATIONS_USE_NO_OTHER_REDQ_PACKAGE = noClasses().that()
		.resideInAPackage("io.redq.queue.support.micrometer..")
		.should()
		.dependOnClassesThat(
				resideInAPackage("io.redq.queue..").and(resideOutsideOfPackage("io.redq.queue.support.micrometer..")))
		.because("observation contexts take plain values, so that the dispatcher and the listener depend on them "
				+ "and not the reverse");

	private static final JavaClasses MAIN_CLASSES = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
		.importPackages("io.redq.queue");

	@Test
	void importsTheMainClassesOfEveryPackage() {
		assertThat(MAIN_CLASSES.contain(RedisJobDispatcher.class)).isTrue();
		assertThat(MAIN_CLASSES.contain(JobListenerContainer.class)).isTrue();
		assertThat(MAIN_CLASSES.contain(RedisLockService.class)).isTrue();
		assertThat(MAIN_CLASSES.contain(ArchitectureTests.class)).as("test classes are not imported").isFalse();
	}

	@Test
	void coreDoesNotDependOnSpringBoot() {
		CORE_DOES_NOT_USE_SPRING_BOOT.check(MAIN_CLASSES);
	}

	@Test
	void springBootIsNotOnTheClasspathOfTheCoreModule() {
		// a dependency that brought Boot in would let a Boot import compile: fail on it
		// here
		assertThatExceptionOfType(ClassNotFoundException.class)
			.isThrownBy(() -> Class.forName("org.springframework.boot.SpringApplication"));
		assertThatExceptionOfType(ClassNotFoundException.class)
			.isThrownBy(() -> Class.forName("org.springframework.boot.autoconfigure.AutoConfiguration"));
	}

	@Test
	void apiDoesNotDependOnItsRedisImplementation() {
		API_DOES_NOT_DEPEND_ON_ITS_REDIS_IMPLEMENTATION.check(MAIN_CLASSES);
	}

	@Test
	void packagesAreFreeOfCycles() {
		PACKAGES_ARE_FREE_OF_CYCLES.check(MAIN_CLASSES);
	}

	@Test
	void redisLayerKnowsNoComponent() {
		REDIS_LAYER_KNOWS_NO_COMPONENT.check(MAIN_CLASSES);
	}

	@Test
	void onlyTheRedisLayerReachesTheKeys() {
		ONLY_THE_REDIS_LAYER_REACHES_THE_KEYS.check(MAIN_CLASSES);
	}

	@Test
	void inspectionReadsRedisThroughTheRedisLayer() {
		INSPECTION_READS_REDIS_THROUGH_THE_REDIS_LAYER.check(MAIN_CLASSES);
	}

	@Test
	void observationsDependOnNoOtherRedqPackage() {
		OBSERVATIONS_USE_NO_OTHER_REDQ_PACKAGE.check(MAIN_CLASSES);
	}

	@Test
	void onlyTheMetricsClassesDependOnMicrometerCore() {
		ONLY_METRICS_USE_MICROMETER_CORE.check(MAIN_CLASSES);
	}

}
