package io.redq.queue.chaos;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * An append-only file of what a worker did, one fsynced line per event, so that it
 * survives a {@code kill -9} of the worker.
 * <p>
 * A line reads {@code EVENT jobId attempt pid epochMillis}, e.g.
 * {@code START 4f1c... 1 4242 1795317499493}. Events: {@code READY} (the worker consumes;
 * the job id is {@code -}), {@code START}, {@code DONE} (the handler returned),
 * {@code LOST} (the handler returned and learned that its lease was lost),
 * {@code INTERRUPTED} and {@code STOPPING} (the application context is closing).
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class Ledger implements AutoCloseable {

	private final FileOutputStream out;

	private final long pid = ProcessHandle.current().pid();

	private final boolean fsync;

	/**
	 * Open a ledger, appending to the file if it exists.
	 * @param file the file
	 * @param fsync whether to force each line to disk; without it a line still survives a
	 * {@code kill -9} of the worker (it is in the page cache), but not a machine crash
	 */
	public Ledger(Path file, boolean fsync) {
		this.fsync = fsync;
		try {
			this.out = new FileOutputStream(file.toFile(), true);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot open ledger " + file, ex);
		}
	}

	/**
	 * Append one event and force it to disk.
	 * @param event the event
	 * @param id the job id, or {@code -}
	 * @param attempt the attempt, or 0
	 */
	public synchronized void record(String event, String id, int attempt) {
		String line = event + " " + id + " " + attempt + " " + this.pid + " " + System.currentTimeMillis() + "\n";
		try {
			this.out.write(line.getBytes(StandardCharsets.UTF_8));
			if (this.fsync) {
				this.out.getFD().sync();
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write ledger", ex);
		}
	}

	@Override
	public synchronized void close() throws IOException {
		this.out.close();
	}

}
