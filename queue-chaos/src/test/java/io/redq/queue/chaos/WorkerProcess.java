package io.redq.queue.chaos;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ChaosWorker} JVM started by the test, with its own ledger and log file.
 */
final class WorkerProcess implements AutoCloseable {

	private final String name;

	private final Path ledger;

	private final Path log;

	private final Process process;

	private WorkerProcess(String name, Path ledger, Path log, Process process) {
		this.name = name;
		this.ledger = ledger;
		this.log = log;
		this.process = process;
	}

	/**
	 * Launch a worker with the test JVM's class path.
	 * @param name a name for its files
	 * @param directory where its ledger and log go
	 * @param redisPort the Redis port
	 * @param arguments extra {@code --name=value} arguments
	 */
	static WorkerProcess launch(String name, Path directory, int redisPort, List<String> arguments) {
		Path ledger = directory.resolve(name + ".ledger");
		Path log = directory.resolve(name + ".log");
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(List.of("-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp",
				System.getProperty("java.class.path"), ChaosWorker.class.getName()));
		// defaults first; an argument with the same name replaces its default
		// (Spring Boot would join repeated arguments with a comma)
		Map<String, String> settings = new LinkedHashMap<>();
		settings.put("spring.data.redis.port", Integer.toString(redisPort));
		settings.put("chaos.ledger", ledger.toString());
		settings.put("redq.listener.lease-time", "1s");
		settings.put("redq.listener.concurrency", "4");
		// the scenarios count what a worker holds as what it runs
		settings.put("redq.listener.prefetch", "0");
		settings.put("redq.listener.poll-timeout", "1s");
		settings.put("redq.listener.shutdown-timeout", "10s");
		for (String argument : arguments) {
			int equals = argument.indexOf('=');
			settings.put(argument.substring(2, equals), argument.substring(equals + 1));
		}
		settings.forEach((key, value) -> command.add("--" + key + "=" + value));
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
				.start();
			return new WorkerProcess(name, ledger, log, process);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot launch worker " + name, ex);
		}
	}

	/** Wait until the worker consumes (its ledger says READY). */
	WorkerProcess awaitReady() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException(
						"Worker " + this.name + " exited with " + this.process.exitValue() + ":\n" + logTail());
			}
			if (ledger().stream().anyMatch((entry) -> entry.event().equals("READY"))) {
				return this;
			}
			ChaosSupport.sleep(50);
		}
		throw new IllegalStateException("Worker " + this.name + " did not start:\n" + logTail());
	}

	String name() {
		return this.name;
	}

	long pid() {
		return this.process.pid();
	}

	Process process() {
		return this.process;
	}

	void signal(String signal) {
		Signals.send(pid(), signal);
	}

	boolean awaitExit(long seconds) {
		try {
			return this.process.waitFor(seconds, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	List<LedgerEntry> ledger() {
		return LedgerEntry.read(this.ledger);
	}

	/** The lines of the worker's log that contain the given text. */
	long countLog(String text) {
		return logLines().stream().filter((line) -> line.contains(text)).count();
	}

	List<String> logLines() {
		try {
			return Files.exists(this.log) ? Files.readAllLines(this.log, StandardCharsets.ISO_8859_1) : List.of();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	String logTail() {
		List<String> lines = logLines();
		return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
	}

	File logFile() {
		return this.log.toFile();
	}

	@Override
	public void close() {
		Signals.destroy(this.process);
	}

	@Override
	public String toString() {
		return this.name + "(pid " + pid() + ")";
	}

}
