package io.redq.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the examples of {@code src/docs/testing.md} in step with the tests they quote, so
 * that the page shows code that compiles and passes.
 *
 * @author Redq team
 */
class TestingPageTests {

	private static final String TAG = "// tag::class[]\n";

	private static final String END = "// end::class[]";

	@ParameterizedTest
	@ValueSource(strings = { "InvoiceJobsIntegrationTests.java", "CheckoutIntegrationTests.java" })
	void pageQuotesTheTaggedPartOfTheExample(String example) throws IOException {
		String source = Files.readString(Path.of("src/test/java/io/redq/docs/testing", example),
				StandardCharsets.UTF_8);
		String quoted = source.substring(source.indexOf(TAG) + TAG.length(), source.indexOf(END));
		String page = Files.readString(Path.of("src/docs/testing.md"), StandardCharsets.UTF_8);
		assertThat(page).contains("```java\n" + quoted + "```\n");
	}

}
