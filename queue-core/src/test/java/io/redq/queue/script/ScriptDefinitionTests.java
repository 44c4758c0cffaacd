package io.redq.queue.script;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ScriptDefinition}: the script sets derive their definitions from their
 * components and are built from them.
 *
 * @author Redq team
 */
class ScriptDefinitionTests {

	@Test
	void queueScriptsAreDefinedByTheirComponents() {
		assertThat(QueueScripts.DEFINITIONS).extracting(ScriptDefinition::name)
			.containsExactly("enqueue", "push", "reserve", "ack", "fail", "extend", "release", "migrate", "cancel",
					"stats", "admit", "hold", "reschedule", "status", "dead", "revive", "model", "purge", "result",
					"progress");
		assertThat(QueueScripts.DEFINITIONS).filteredOn((definition) -> definition.resultType() == Long.class)
			.extracting(ScriptDefinition::name)
			.containsExactly("fail", "release", "cancel", "admit", "reschedule", "revive", "model", "purge",
					"progress");
		assertThat(QueueScripts.DEFINITIONS).extracting(ScriptDefinition::resultType)
			.containsOnly(List.class, Long.class);
	}

	@Test
	void recurringScriptsAreDefinedByTheirComponentsWithAPrefix() {
		assertThat(RecurringScripts.DEFINITIONS).containsExactly(new ScriptDefinition("recurring-tick", List.class),
				new ScriptDefinition("recurring-pause", Long.class));
	}

	@Test
	void everyScriptResourceHasADefinition() throws IOException {
		List<String> resources = new ArrayList<>();
		for (Resource resource : new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/redq/queue/script/*.lua")) {
			resources.add(resource.getFilename().replace(".lua", ""));
		}
		assertThat(Stream.concat(QueueScripts.DEFINITIONS.stream(), RecurringScripts.DEFINITIONS.stream())
			.map(ScriptDefinition::name))
			.containsExactlyInAnyOrderElementsOf(resources.stream().filter((name) -> !name.equals("common")).toList());
	}

	@Test
	void loadGivesEachComponentTheScriptOfItsDefinition() {
		QueueScripts scripts = QueueScripts.load();
		assertThat(scripts.enqueue().getScriptAsString())
			.isEqualTo(QueueScripts.load("enqueue", List.class).getScriptAsString());
		assertThat(scripts.revive().getResultType()).isEqualTo(Long.class);
		assertThat(scripts.revive().getScriptAsString())
			.isEqualTo(QueueScripts.load("revive", Long.class).getScriptAsString());
		RecurringScripts recurring = RecurringScripts.load();
		assertThat(recurring.pause().getScriptAsString())
			.isEqualTo(QueueScripts.load("recurring-pause", Long.class).getScriptAsString());
	}

	@Test
	void fromTakesEachScriptFromTheSource() {
		List<ScriptDefinition> asked = new ArrayList<>();
		QueueScripts scripts = QueueScripts.from((definition) -> {
			asked.add(definition);
			return RedisScript.of("return '" + definition.name() + "'", definition.resultType());
		});
		assertThat(asked).isEqualTo(QueueScripts.DEFINITIONS);
		assertThat(scripts.ack().getScriptAsString()).isEqualTo("return 'ack'");
		assertThat(scripts.hold().getScriptAsString()).isEqualTo("return 'hold'");
		assertThat(scripts.hold().getResultType()).isEqualTo(List.class);
	}

}
