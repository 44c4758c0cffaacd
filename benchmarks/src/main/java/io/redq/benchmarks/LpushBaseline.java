package io.redq.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs {@code redis-benchmark -t lpush -c 50 -q} (non-pipelined LPUSH from 50 clients)
 * against the benchmark's Redis. Its requests per second are the yardstick the results
 * are divided by, so that runs on different or busy machines can be compared.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class LpushBaseline {

	private static final Pattern RESULT = Pattern.compile("LPUSH: ([0-9.]+) requests per second");

	private LpushBaseline() {
	}

	static OptionalDouble run(RedisAdmin admin, int requests, PrintStream out) throws InterruptedException {
		List<String> command = List.of("redis-benchmark", "-h", admin.host(), "-p", Integer.toString(admin.port()),
				"-t", "lpush", "-c", "50", "-n", Integer.toString(requests), "-q");
		String output;
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			process.waitFor(5, TimeUnit.MINUTES);
		}
		catch (IOException ex) {
			out.println("redis-benchmark is not available (" + ex.getMessage()
					+ "); install redis-tools for the LPUSH baseline. No ratios in this run.");
			return OptionalDouble.empty();
		}
		finally {
			// its list, "mylist"
			admin.delete(List.of("mylist"));
		}
		Matcher matcher = RESULT.matcher(output);
		if (!matcher.find()) {
			out.println("redis-benchmark gave no LPUSH figure; no ratios in this run. Its output: " + output.trim());
			return OptionalDouble.empty();
		}
		double perSecond = Double.parseDouble(matcher.group(1));
		out.printf("%s: %.0f LPUSH/s%n", String.join(" ", command), perSecond);
		return OptionalDouble.of(perSecond);
	}

}
