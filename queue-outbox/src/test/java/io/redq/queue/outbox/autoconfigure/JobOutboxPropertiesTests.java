package io.redq.queue.outbox.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;

import io.redq.queue.outbox.JdbcOutboxRelay;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JobOutboxProperties} and the configuration metadata that an IDE shows
 * for them.
 *
 * @author Redq team
 */
class JobOutboxPropertiesTests {

	@Test // issue 35, item 7
	void everyOutboxPropertyHasADescriptionAndADefaultInTheMetadata() throws IOException {
		Map<String, JsonNode> properties = new LinkedHashMap<>();
		try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json",
				JobOutboxProperties.class.getClassLoader())
			.getInputStream()) {
			for (JsonNode property : JsonMapper.shared().readTree(in).path("properties")) {
				if (property.path("name").asString().startsWith("redq.outbox.")) {
					properties.put(property.path("name").asString(), property);
				}
			}
		}
		assertThat(properties).containsKeys("redq.outbox.jdbc.initialize-schema", "redq.outbox.jdbc.schema",
				"redq.outbox.jdbc.platform", "redq.outbox.jdbc.continue-on-error", "redq.outbox.relay.max-attempts");
		properties.forEach((name, property) -> {
			assertThat(property.path("description").asString("")).as("description of %s", name).isNotBlank();
			if (!name.equals("redq.outbox.jdbc.platform")) {
				assertThat(property.has("defaultValue")).as("default of %s", name).isTrue();
			}
		});
		JobOutboxProperties defaults = new JobOutboxProperties();
		assertThat(properties.get("redq.outbox.jdbc.initialize-schema").path("defaultValue").asString())
			.isEqualTo(defaults.getJdbc().getInitializeSchema().name().toLowerCase());
		assertThat(defaults.getJdbc().getInitializeSchema()).isEqualTo(DatabaseInitializationMode.EMBEDDED);
		assertThat(properties.get("redq.outbox.jdbc.schema").path("defaultValue").asString())
			.isEqualTo(defaults.getJdbc().getSchema());
		assertThat(properties.get("redq.outbox.jdbc.continue-on-error").path("defaultValue").asBoolean())
			.isEqualTo(defaults.getJdbc().isContinueOnError());
		assertThat(defaults.getRelay().getMaxAttempts()).isEqualTo(JdbcOutboxRelay.DEFAULT_MAX_ATTEMPTS);
		assertThat(defaults.getRelay().getResendWindow()).isEqualTo(JdbcOutboxRelay.DEFAULT_RESEND_WINDOW);
	}

}
