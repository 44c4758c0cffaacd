package io.redq.docs;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.redq.queue.autoconfigure.JobQueueProperties;
import io.redq.queue.dashboard.DashboardProperties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@code src/docs/configuration.md} in step with the
 * {@code META-INF/spring-configuration-metadata.json} that the configuration processor
 * generates into the queue-autoconfigure and queue-dashboard jars.
 *
 * <p>
 * The rules:
 * <ul>
 * <li>Each property of the metadata has a table row whose first cell is its name in
 * backticks.</li>
 * <li>The processor lists a map property such as {@code redq.queues} (a
 * {@code Map<String, Queue>}) by its name alone. The page documents it by its entries
 * instead, one row per property of the map's value class, with the key as a placeholder
 * in angle brackets: {@code redq.queues.<queue>.concurrency}. Such a row must name a
 * property of the value class, and each property of the value class must have a row.</li>
 * <li>Each {@code redq.} name in backticks anywhere on the page must be a property, a map
 * entry as above, or a group prefix ending in {@code .*}.</li>
 * <li>A row's type is the simple name of the property's type, with those of its type
 * arguments: {@code Set<String>}.</li>
 * <li>A row's default, when it is one literal in backticks, is the default in the code:
 * for a property of {@link JobQueueProperties}, it is bound onto a fresh one and must
 * give the same value as an unbound one. It must also match the metadata's
 * {@code defaultValue}, where there is one (for example {@code redq.enabled}, which only
 * a condition reads, or {@code management.endpoint.redq.access}, which the processor
 * derives from the endpoint). The default of a map entry says where the value comes from
 * and is not checked; {@code empty} is that of a collection, which the metadata leaves
 * out.</li>
 * </ul>
 *
 * @author Redq team
 */
class ConfigurationReferenceTests {

	private static final Path PAGE = Path.of("src", "docs", "configuration.md");

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	private static final Pattern ROW = Pattern.compile(
			"^\\|\\s*`((?:redq|management\\.(?:health|endpoint)\\.redq)\\.[^`]+)`\\s*\\|\\s*`([^`]+)`\\s*\\|\\s*(.*?)\\s*\\|.*$");

	private static final Pattern MENTION = Pattern.compile("`(redq\\.[a-z0-9.<>*-]+)`");

	private static final Pattern MAP_ENTRY = Pattern.compile("^(redq\\.[a-z0-9.-]+)\\.<[a-z-]+>\\.([a-z0-9-]+)$");

	private static final Pattern LITERAL = Pattern.compile("^`([^`]+)`$");

	private static Map<String, JsonNode> properties;

	private static Map<String, Row> rows;

	private static String page;

	@BeforeAll
	static void load() throws IOException {
		properties = readMetadata();
		page = Files.readString(PAGE, StandardCharsets.UTF_8);
		rows = new LinkedHashMap<>();
		for (String line : page.lines().toList()) {
			Matcher row = ROW.matcher(line);
			if (row.matches()) {
				assertThat(rows.put(row.group(1), new Row(row.group(1), row.group(2), row.group(3))))
					.as("second row for %s", row.group(1))
					.isNull();
			}
		}
	}

	@Test
	void metadataIsFound() {
		assertThat(properties).containsKeys("redq.enabled", "redq.key-prefix", "redq.queues", "redq.jobs",
				"redq.dashboard.enabled");
	}

	@Test
	void everyPropertyInTheMetadataIsDocumented() {
		Set<String> expected = new TreeSet<>();
		properties.forEach((name, property) -> {
			Class<?> valueType = mapValueType(property);
			if (valueType == null) {
				expected.add(name);
			}
			else {
				for (String entry : propertiesOf(valueType)) {
					expected.add(name + ".<key>." + entry);
				}
			}
		});
		Set<String> documented = new TreeSet<>();
		for (String name : rows.keySet()) {
			documented.add(name.replaceAll("\\.<[a-z-]+>\\.", ".<key>."));
		}
		assertThat(documented).as("rows of %s", PAGE).containsAll(expected);
	}

	@Test
	void everyDocumentedPropertyExists() {
		List<String> unknown = new ArrayList<>();
		Matcher mention = MENTION.matcher(page);
		while (mention.find()) {
			String name = mention.group(1);
			if (!exists(name)) {
				unknown.add(name);
			}
		}
		assertThat(unknown).as("names on %s that are not Redq properties", PAGE).isEmpty();
	}

	@Test
	void typesMatch() {
		for (Row row : rows.values()) {
			assertThat(row.type()).as("type of %s", row.name()).isEqualTo(typeOf(row.name()));
		}
	}

	@Test
	void defaultsMatch() {
		JobQueueProperties defaults = new JobQueueProperties();
		for (Row row : rows.values()) {
			Matcher literal = LITERAL.matcher(row.defaultValue());
			if (MAP_ENTRY.matcher(row.name()).matches()) {
				continue;
			}
			if (row.defaultValue().equals("no limit")) {
				// an unset limit: the property has no default
				assertThat(new BeanWrapperImpl(defaults).getPropertyValue(beanPath(row.name())))
					.as("default of %s", row.name())
					.isNull();
				continue;
			}
			if (row.defaultValue().equals("empty")) {
				// an empty collection, which the metadata gives no default
				assertThat(properties.get(row.name()).has("defaultValue")).as("default of %s", row.name()).isFalse();
				continue;
			}
			assertThat(literal.matches()).as("default of %s is one literal in backticks", row.name()).isTrue();
			String value = literal.group(1);
			JsonNode property = properties.get(row.name());
			assertThat(property).as("metadata of %s", row.name()).isNotNull();
			if (property.has("defaultValue")) {
				assertThat(value).as("default of %s in the metadata", row.name())
					.isEqualTo(property.get("defaultValue").asString());
			}
			if (property.path("sourceType").asString("").startsWith(JobQueueProperties.class.getName())) {
				String path = beanPath(row.name());
				JobQueueProperties bound = new JobQueueProperties();
				new Binder(new MapConfigurationPropertySource(Map.of(row.name(), value))).bind("redq",
						Bindable.ofInstance(bound));
				assertThat(new BeanWrapperImpl(bound).getPropertyValue(path)).as("%s bound to %s", value, row.name())
					.isEqualTo(new BeanWrapperImpl(defaults).getPropertyValue(path));
			}
		}
	}

	private static boolean exists(String name) {
		if (name.endsWith(".*")) {
			String prefix = name.substring(0, name.length() - 1);
			return properties.keySet().stream().anyMatch((property) -> property.startsWith(prefix));
		}
		if (properties.containsKey(name)) {
			return true;
		}
		Matcher entry = MAP_ENTRY.matcher(name);
		if (entry.matches() && properties.containsKey(entry.group(1))) {
			Class<?> valueType = mapValueType(properties.get(entry.group(1)));
			return valueType != null && propertiesOf(valueType).contains(entry.group(2));
		}
		return false;
	}

	private static String typeOf(String name) {
		Matcher entry = MAP_ENTRY.matcher(name);
		if (entry.matches()) {
			Class<?> valueType = mapValueType(properties.get(entry.group(1)));
			for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(valueType)) {
				if (kebabCase(descriptor.getName()).equals(entry.group(2))) {
					return ClassUtils.resolvePrimitiveIfNecessary(descriptor.getPropertyType()).getSimpleName();
				}
			}
			return "?";
		}
		// simple names, also of type arguments: java.util.Set<java.lang.String> is
		// Set<String>
		return properties.get(name).get("type").asString().replaceAll("\\w+[.$]", "");
	}

	/**
	 * Return the value class of a {@code Map<String, V>} property whose values are beans,
	 * else {@code null}.
	 */
	private static Class<?> mapValueType(JsonNode property) {
		String type = property.get("type").asString();
		if (!type.startsWith("java.util.Map<java.lang.String,") || !type.endsWith(">")) {
			return null;
		}
		String valueType = type.substring("java.util.Map<java.lang.String,".length(), type.length() - 1);
		try {
			Class<?> value = ClassUtils.forName(valueType, ConfigurationReferenceTests.class.getClassLoader());
			return propertiesOf(value).isEmpty() ? null : value;
		}
		catch (ClassNotFoundException ex) {
			return null;
		}
	}

	private static Set<String> propertiesOf(Class<?> type) {
		Set<String> names = new TreeSet<>();
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			if (descriptor.getWriteMethod() != null) {
				names.add(kebabCase(descriptor.getName()));
			}
		}
		return names;
	}

	private static String beanPath(String name) {
		List<String> segments = new ArrayList<>();
		for (String segment : name.substring("redq.".length()).split("\\.")) {
			StringBuilder camel = new StringBuilder();
			for (String word : segment.split("-")) {
				camel.append(camel.isEmpty() ? word : Character.toUpperCase(word.charAt(0)) + word.substring(1));
			}
			segments.add(camel.toString());
		}
		return String.join(".", segments);
	}

	private static String kebabCase(String name) {
		return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
	}

	/**
	 * Read the properties of the metadata files on the class path that describe
	 * {@link JobQueueProperties} and {@link DashboardProperties}, one each: the Spring
	 * Boot jars on the test class path have metadata files of their own.
	 */
	private static Map<String, JsonNode> readMetadata() throws IOException {
		Map<String, JsonNode> found = new LinkedHashMap<>();
		for (Class<?> source : List.of(JobQueueProperties.class, DashboardProperties.class)) {
			Set<URL> matches = new LinkedHashSet<>();
			for (URL url : Collections
				.list(ConfigurationReferenceTests.class.getClassLoader().getResources(METADATA))) {
				JsonNode metadata;
				try (InputStream in = url.openStream()) {
					metadata = JsonMapper.shared().readTree(in);
				}
				boolean ours = false;
				for (JsonNode group : metadata.path("groups")) {
					ours |= source.getName().equals(group.path("sourceType").asString(""));
				}
				if (ours) {
					matches.add(url);
					for (JsonNode property : metadata.path("properties")) {
						found.put(property.get("name").asString(), property);
					}
				}
			}
			assertThat(matches).as("class path resources %s describing %s", METADATA, source.getName()).hasSize(1);
		}
		return found;
	}

	private record Row(String name, String type, String defaultValue) {
	}

}
