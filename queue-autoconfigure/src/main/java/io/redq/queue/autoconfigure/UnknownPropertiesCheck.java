package io.redq.queue.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.ConfigurationPropertiesBean;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.context.ApplicationContext;
import org.springframework.util.ClassUtils;

/**
 * Warns at startup about each {@code redq.*} property that no Redq setting of this
 * application reads, such as a misspelled one, which Spring Boot would otherwise ignore
 * without a word; it names where the property was set and the nearest known name. Known
 * are the properties that the {@code redq.*} configuration properties classes bind (map
 * keys such as queue names included) and those that the configuration metadata declares.
 *
 * @author Redq team
 * @since 0.1.0
 */
class UnknownPropertiesCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(UnknownPropertiesCheck.class);

	private static final String ROOT = "redq";

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	private final ApplicationContext context;

	UnknownPropertiesCheck(ApplicationContext context) {
		this.context = context;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Set<String> declared = declaredNames();
		for (ConfigurationProperty property : unknownProperties(declared)) {
			String name = property.getName().toString();
			String nearest = nearest(name, declared);
			logger.warn("Unknown property '" + name + "'"
					+ ((property.getOrigin() != null) ? " (" + property.getOrigin() + ")" : "")
					+ ": no Redq setting of this application reads it, so it has no effect."
					+ ((nearest != null) ? " Did you mean '" + nearest + "'?" : "")
					+ " The configuration reference lists every redq.* property; a module's own (redq.dashboard.*, "
					+ "redq.outbox.*) are read only when that module is on the classpath");
		}
	}

	/**
	 * Bind every {@code redq.*} properties class afresh, each without the prefixes of the
	 * others, and collect what none of them binds and no metadata declares.
	 */
	List<ConfigurationProperty> unknownProperties(Set<String> declared) {
		List<ConfigurationPropertiesBean> beans = ConfigurationPropertiesBean.getAll(this.context)
			.values()
			.stream()
			.filter((bean) -> isRedq(bean.getAnnotation().prefix()))
			.toList();
		List<String> prefixes = beans.stream().map((bean) -> bean.getAnnotation().prefix()).toList();
		Binder binder = Binder.get(this.context.getEnvironment());
		Set<ConfigurationProperty> unknown = new TreeSet<>(Comparator.comparing(ConfigurationProperty::getName));
		for (ConfigurationPropertiesBean bean : beans) {
			String prefix = bean.getAnnotation().prefix();
			// another class binds the properties under a longer prefix of its own
			List<ConfigurationPropertyName> others = prefixes.stream()
				.filter((other) -> other.length() > prefix.length() && other.startsWith(prefix + "."))
				.map(ConfigurationPropertyName::of)
				.toList();
			Object fresh = BeanUtils.instantiateClass(ClassUtils.getUserClass(bean.getInstance()));
			try {
				binder.bind(prefix, Bindable.ofInstance(fresh), new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
			}
			catch (RuntimeException ex) {
				// a value that does not bind fails the application's own binding, which
				// says so
				UnboundConfigurationPropertiesException unbound = find(ex);
				if (unbound != null) {
					unbound.getUnboundProperties()
						.stream()
						.filter((property) -> !declared.contains(property.getName().toString()))
						.filter((property) -> others.stream()
							.noneMatch((other) -> other.isAncestorOf(property.getName())))
						.forEach(unknown::add);
				}
			}
		}
		return List.copyOf(unknown);
	}

	private static boolean isRedq(String prefix) {
		return prefix.equals(ROOT) || prefix.startsWith(ROOT + ".");
	}

	private static UnboundConfigurationPropertiesException find(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof UnboundConfigurationPropertiesException unbound) {
				return unbound;
			}
		}
		return null;
	}

	/**
	 * The {@code redq.*} names that the metadata of the modules on the classpath declare.
	 */
	private Set<String> declaredNames() {
		Set<String> names = new TreeSet<>();
		try {
			Enumeration<URL> files = this.context.getClassLoader().getResources(METADATA);
			while (files.hasMoreElements()) {
				try (InputStream in = files.nextElement().openStream()) {
					for (JsonNode property : JsonMapper.shared().readTree(in).path("properties")) {
						String name = property.path("name").asString();
						if (name.startsWith(ROOT + ".")) {
							names.add(name);
						}
					}
				}
			}
		}
		catch (IOException ex) {
			logger.debug("Could not read the configuration metadata", ex);
		}
		return names;
	}

	/** The declared name nearest to a name, within a few edits, or {@code null}. */
	static String nearest(String name, Set<String> declared) {
		String nearest = null;
		int best = Math.max(2, name.length() / 8) + 1;
		for (String candidate : declared) {
			int distance = distance(name, candidate);
			if (distance < best) {
				best = distance;
				nearest = candidate;
			}
		}
		return nearest;
	}

	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}
