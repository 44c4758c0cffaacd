package io.redq.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The alerting rules of the Operations page ask Prometheus for series that the Metrics
 * page lists, so that a renamed meter cannot leave a rule that never fires.
 *
 * @author Redq team
 */
class PageSeriesTests {

	private static final Pattern SERIES = Pattern.compile("redq_[a-z_]+");

	@Test
	void theAlertingRulesAskForSeriesTheMetricsPageLists() throws IOException {
		Set<String> used = series("operations.md");
		assertThat(used).isNotEmpty();
		assertThat(series("metrics.md")).containsAll(used);
	}

	private static Set<String> series(String page) throws IOException {
		Matcher matcher = SERIES.matcher(Files.readString(Path.of("src/docs", page), StandardCharsets.UTF_8));
		Set<String> series = new TreeSet<>();
		while (matcher.find()) {
			series.add(matcher.group());
		}
		return series;
	}

}
