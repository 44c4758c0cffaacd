package io.redq.queue.script;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.util.Assert;

/**
 * The part of {@code common.lua} that one script needs: every statement (the key layout,
 * the constants, the data-model check) and only the helper functions the script calls,
 * directly or through other helpers.
 *
 * <p>
 * Redis runs a script's whole text on every call, so each helper defined costs a closure
 * per call whether the script calls it or not: with every helper, the definitions took
 * about a seventh of a single enqueue's time. {@code common.lua} is kept in paragraphs
 * separated by blank lines, a helper function and its comment one paragraph; a helper is
 * kept when its name occurs in the code kept after it (comments aside). Lua resolves a
 * local name only to a definition before its use, so one pass from the script back to the
 * top of {@code common.lua} finds every helper a script can call.
 *
 * @author Redq team
 */
final class CommonLua {

	private static final Pattern FUNCTION = Pattern.compile("^local function (\\w+)\\(", Pattern.MULTILINE);

	private static final Pattern COMMENT = Pattern.compile("--[^\n]*");

	private static final Pattern NAME = Pattern.compile("[A-Za-z_]\\w*");

	private final List<Paragraph> paragraphs = new ArrayList<>();

	CommonLua(String common) {
		for (String text : common.split("\n\n")) {
			Matcher function = FUNCTION.matcher(text);
			String defines = function.find() ? function.group(1) : null;
			Assert.state(defines != null || !text.startsWith("\t"),
					() -> "common.lua has a blank line inside a definition, before: " + text.lines().findFirst().get());
			this.paragraphs.add(new Paragraph(text, defines, namesIn(text)));
		}
	}

	/**
	 * The part of {@code common.lua} to prepend to a script.
	 * @param script the script's own text
	 * @return the statements and the helpers the script calls, in their order in
	 * {@code common.lua}
	 */
	String prefixFor(String script) {
		Set<String> used = namesIn(script);
		List<String> kept = new ArrayList<>();
		for (int i = this.paragraphs.size() - 1; i >= 0; i--) {
			Paragraph paragraph = this.paragraphs.get(i);
			if (paragraph.function() == null || used.contains(paragraph.function())) {
				kept.add(0, paragraph.text());
				used.addAll(paragraph.names());
			}
		}
		return String.join("\n\n", kept);
	}

	private static Set<String> namesIn(String code) {
		Set<String> names = new HashSet<>();
		Matcher name = NAME.matcher(COMMENT.matcher(code).replaceAll(""));
		while (name.find()) {
			names.add(name.group());
		}
		return names;
	}

	/**
	 * A paragraph of {@code common.lua}.
	 *
	 * @param text its text
	 * @param function the helper function it defines, or {@code null} for statements,
	 * which every script runs
	 * @param names the names its code mentions
	 */
	private record Paragraph(String text, String function, Set<String> names) {

	}

}
