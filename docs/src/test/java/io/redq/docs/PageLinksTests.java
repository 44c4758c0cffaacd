package io.redq.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every link between the pages leads somewhere: to a page or image under
 * {@code src/docs}, and to a heading of that page when it names one, by the anchors the
 * site's generator (MkDocs) and GitHub give headings. MkDocs itself fails the site's
 * build on a missing page, but not on a missing anchor.
 *
 * @author Redq team
 */
class PageLinksTests {

	private static final Path PAGES = Path.of("src/docs");

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*$");

	@Test
	void everyLinkLeadsToAPageAndHeadingThatExist() throws IOException {
		List<String> broken = new ArrayList<>();
		try (Stream<Path> pages = Files.list(PAGES)) {
			for (Path page : pages.filter((path) -> path.toString().endsWith(".md")).sorted().toList()) {
				for (String link : links(page)) {
					String problem = problem(page, link);
					if (problem != null) {
						broken.add(page.getFileName() + ": " + link + ": " + problem);
					}
				}
			}
		}
		assertThat(broken).isEmpty();
	}

	@Test
	void anchorsAreTheGeneratorsSlugs() {
		assertThat(slug("Caller-chosen ids: KEEP, REPLACE and REPLACE_PAYLOAD"))
			.isEqualTo("caller-chosen-ids-keep-replace-and-replace_payload");
		assertThat(slug("`JobContext` and [retries](x.md)")).isEqualTo("jobcontext-and-retries");
	}

	private static @Nullable String problem(Path page, String link) throws IOException {
		if (link.matches("^[a-z]+:.*")) {
			// another site, or mail
			return null;
		}
		int hash = link.indexOf('#');
		String file = (hash >= 0) ? link.substring(0, hash) : link;
		String anchor = (hash >= 0) ? link.substring(hash + 1) : null;
		Path target = file.isEmpty() ? page : page.resolveSibling(file).normalize();
		if (!target.startsWith(PAGES) || !Files.isRegularFile(target)) {
			return "no such page under " + PAGES + " (the site has only these; name files elsewhere as text)";
		}
		if (anchor != null && !anchors(target).contains(anchor)) {
			return "no heading of " + target.getFileName() + " has this anchor";
		}
		return null;
	}

	private static List<String> links(Path page) throws IOException {
		List<String> links = new ArrayList<>();
		boolean code = false;
		for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
			if (line.startsWith("```")) {
				code = !code;
			}
			if (!code) {
				Matcher matcher = LINK.matcher(line.replaceAll("`[^`]*`", ""));
				while (matcher.find()) {
					links.add(matcher.group(1));
				}
			}
		}
		return links;
	}

	private static Set<String> anchors(Path page) throws IOException {
		Set<String> anchors = new HashSet<>();
		boolean code = false;
		for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
			if (line.startsWith("```")) {
				code = !code;
			}
			Matcher heading = HEADING.matcher(line);
			if (!code && heading.matches()) {
				String slug = slug(heading.group(1));
				String unique = slug;
				for (int i = 1; !anchors.add(unique); i++) {
					unique = slug + "_" + i;
				}
			}
		}
		return anchors;
	}

	/**
	 * The anchor of a heading as Python-Markdown's table of contents makes it, which
	 * MkDocs uses: the heading's text without its markup, in ASCII, without punctuation
	 * but {@code -} and {@code _}, in lower case, with runs of spaces and hyphens as one
	 * hyphen.
	 */
	static String slug(String heading) {
		String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("[`*]", "");
		String ascii = Normalizer.normalize(text, Normalizer.Form.NFKD).replaceAll("[^\\p{ASCII}]", "");
		String plain = ascii.replaceAll("[^\\w\\s-]", "").strip().toLowerCase(Locale.ROOT);
		return plain.replaceAll("[-\\s]+", "-");
	}

}
