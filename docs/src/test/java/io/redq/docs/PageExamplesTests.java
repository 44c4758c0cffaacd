package io.redq.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps every Java snippet of the pages in step with code that the build compiles: the
 * line before a {@code ```java} block names a region of a source file, relative to the
 * repository's root, as {@code <!-- example: sample-app/src/main/java/...java#tag -->},
 * and the block must be that region. A region is what lies between {@code // tag::tag[]}
 * and {@code // end::tag[]}; a tag used several times (the imports of a fragment, then
 * the fragment inside a method) makes one snippet of its regions, each without its common
 * indentation and a blank line between them. Marker lines of other tags inside a region
 * are left out.
 *
 * @author Redq team
 */
class PageExamplesTests {

	private static final Path ROOT = Path.of("..");

	private static final Pattern MARKER = Pattern.compile("<!-- example: (\\S+)#(\\S+) -->");

	private static final Pattern TAG_LINE = Pattern.compile("\\s*// (tag|end)::[\\w-]+\\[]\\s*");

	static Stream<Path> pages() throws IOException {
		return Files.list(Path.of("src/docs")).filter((page) -> page.toString().endsWith(".md")).sorted();
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("pages")
	void everyJavaSnippetIsTheMarkedRegionOfCompiledCode(Path page) throws IOException {
		List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
		int unmarked = 0;
		for (int i = 0; i < lines.size(); i++) {
			if (!lines.get(i).equals("```java")) {
				continue;
			}
			int end = lines.subList(i + 1, lines.size()).indexOf("```") + i + 1;
			String snippet = String.join("\n", lines.subList(i + 1, end));
			Matcher marker = (i > 0) ? MARKER.matcher(lines.get(i - 1)) : MARKER.matcher("");
			if (marker.matches()) {
				assertThat(snippet).as("the snippet at %s:%d", page, i + 1)
					.isEqualTo(region(marker.group(1), marker.group(2)));
			}
			else {
				unmarked++;
			}
			i = end;
		}
		assertThat(unmarked).as("Java snippets of %s without an example marker on the line before", page).isZero();
	}

	/**
	 * Return the regions of a tag in a source file, as a page quotes them.
	 */
	private static String region(String file, String tag) {
		List<String> source;
		try {
			source = Files.readAllLines(ROOT.resolve(file), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("No source " + file + " for an example marker", ex);
		}
		List<String> regions = new ArrayList<>();
		List<String> region = null;
		for (String line : source) {
			if (line.trim().equals("// tag::" + tag + "[]")) {
				region = new ArrayList<>();
			}
			else if (line.trim().equals("// end::" + tag + "[]") && region != null) {
				regions.add(withoutIndentation(region));
				region = null;
			}
			else if (region != null && !TAG_LINE.matcher(line).matches()) {
				region.add(line);
			}
		}
		assertThat(regions).as("regions tagged '%s' in %s", tag, file).isNotEmpty();
		return String.join("\n\n", regions);
	}

	// and without its leading and trailing blank lines
	private static String withoutIndentation(List<String> lines) {
		int indentation = lines.stream()
			.filter((line) -> !line.isBlank())
			.mapToInt((line) -> line.length() - line.stripLeading().length())
			.min()
			.orElse(0);
		List<String> text = lines.stream().map((line) -> line.isBlank() ? "" : line.substring(indentation)).toList();
		int first = 0;
		int last = text.size();
		while (first < last && text.get(first).isEmpty()) {
			first++;
		}
		while (last > first && text.get(last - 1).isEmpty()) {
			last--;
		}
		return String.join("\n", text.subList(first, last));
	}

}
