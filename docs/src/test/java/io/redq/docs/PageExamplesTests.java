package io.redq.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the examples the pages quote in step with the code under {@code src/test/java}
 * that the build compiles and runs: each page quotes an example's tagged part whole.
 *
 * @author Redq team
 */
class PageExamplesTests {

	private static final String TAG = "// tag::class[]\n";

	private static final String END = "// end::class[]";

	@ParameterizedTest
	@CsvSource({ "testing.md, testing/InvoiceJobsIntegrationTests.java",
			"testing.md, testing/CheckoutIntegrationTests.java", "hooks.md, hooks/TenantPropagation.java",
			"hooks.md, hooks/JobAlerts.java", "migrating.md, migrating/PodcastJobs.java",
			"migrating.md, migrating/OrderTimeouts.java", "migrating.md, migrating/AuctionTimers.java",
			"migrating.md, migrating/NewsletterJobs.java" })
	void pageQuotesTheTaggedPartOfTheExample(String page, String example) throws IOException {
		String source = Files.readString(Path.of("src/test/java/io/redq/docs", example), StandardCharsets.UTF_8);
		String quoted = source.substring(source.indexOf(TAG) + TAG.length(), source.indexOf(END));
		String text = Files.readString(Path.of("src/docs", page), StandardCharsets.UTF_8);
		assertThat(text).contains("```java\n" + quoted + "```\n");
	}

}
