package io.redq.queue.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One line of a worker's {@link Ledger}.
 */
record LedgerEntry(String event, String id, int attempt, long pid, long time) {

	static List<LedgerEntry> read(Path file) {
		if (!Files.exists(file)) {
			return List.of();
		}
		List<String> lines;
		try {
			lines = Files.readAllLines(file, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<LedgerEntry> entries = new ArrayList<>();
		for (String line : lines) {
			String[] parts = line.split(" ");
			// a worker killed in the middle of a write leaves a partial last line
			if (parts.length == 5) {
				entries.add(new LedgerEntry(parts[0], parts[1], Integer.parseInt(parts[2]), Long.parseLong(parts[3]),
						Long.parseLong(parts[4])));
			}
		}
		return entries;
	}

	boolean is(String event) {
		return this.event.equals(event);
	}

	boolean finished() {
		return is("DONE") || is("LOST");
	}

}
