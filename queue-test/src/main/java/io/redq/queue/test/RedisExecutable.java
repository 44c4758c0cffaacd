package io.redq.queue.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Finds the {@code redis-server} executable that a local {@link RedisServer} runs.
 * <p>
 * In this order: the one the environment variable {@value #ENVIRONMENT_VARIABLE} names (a
 * path, or {@value #EMBEDDED} for the shipped one), else {@code redis-server} on the
 * {@code PATH}, else the Redis 6.2 that the {@code com.github.codemonstur:embedded-redis}
 * artifact ships for Linux and macOS (amd64 and arm64), copied out of the jar once into a
 * directory of this user's under the temporary directory, {@code redq-<user>}, that only
 * this user can read or write, and run only when its SHA-256 digest is the shipped
 * content's. The shipped server is the oldest Redis that Redq supports, so that a build
 * without a system {@code redis-server} still tests against a real one.
 *
 * @param configured the value of {@value #ENVIRONMENT_VARIABLE}, if any
 * @param path the {@code PATH} to search
 * @param embedded whether the shipped server may be used
 * @author Redq team
 * @since 0.1.0
 */
record RedisExecutable(@Nullable String configured, @Nullable String path, boolean embedded) {

	/** Names the {@code redis-server} to run: a path, or {@value #EMBEDDED}. */
	static final String ENVIRONMENT_VARIABLE = "REDQ_REDIS_SERVER";

	/** Value of {@value #ENVIRONMENT_VARIABLE} that selects the shipped server. */
	static final String EMBEDDED = "embedded";

	private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

	/** Where the shipped server comes from, for log and error messages. */
	static final String EMBEDDED_ARTIFACT = "com.github.codemonstur:embedded-redis";

	/**
	 * The executable the environment of this JVM asks for.
	 * @return the lookup of {@value #ENVIRONMENT_VARIABLE}, {@code PATH} and the shipped
	 * server
	 */
	static RedisExecutable fromEnvironment() {
		return new RedisExecutable(System.getenv(ENVIRONMENT_VARIABLE), System.getenv("PATH"), true);
	}

	/**
	 * Find the executable.
	 * @return the executable, or {@code null} when there is none
	 * @throws IllegalStateException when {@value #ENVIRONMENT_VARIABLE} names a file that
	 * is not an executable, or asks for the shipped server on a platform it lacks
	 */
	@Nullable Path find() {
		if (this.configured != null && !this.configured.isBlank()) {
			String configured = this.configured.trim();
			if (EMBEDDED.equals(configured)) {
				Path shipped = shipped();
				if (shipped == null) {
					throw new IllegalStateException(ENVIRONMENT_VARIABLE + "=" + EMBEDDED + ", but " + EMBEDDED_ARTIFACT
							+ " ships no redis-server for " + platform() + " or is not on the classpath");
				}
				return shipped;
			}
			Path named = Path.of(configured);
			if (!Files.isRegularFile(named) || !Files.isExecutable(named)) {
				throw new IllegalStateException(ENVIRONMENT_VARIABLE + " must name a redis-server executable or be "
						+ EMBEDDED + ", but was: " + configured);
			}
			return named;
		}
		Path onPath = findOnPath(this.path);
		if (onPath != null) {
			return onPath;
		}
		return this.embedded ? shipped() : null;
	}

	/**
	 * Whether an executable is the shipped one.
	 * @param executable an executable that {@link #find()} returned
	 * @return whether it was copied out of {@value #EMBEDDED_ARTIFACT}
	 */
	static boolean isShipped(Path executable) {
		return executable.getFileName().toString().startsWith("redq-embedded-");
	}

	private static @Nullable Path findOnPath(@Nullable String path) {
		if (path == null) {
			return null;
		}
		for (String entry : path.split(File.pathSeparator)) {
			if (!entry.isEmpty()) {
				Path candidate = Path.of(entry, "redis-server");
				if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		return null;
	}

	private static @Nullable Path shipped() {
		return shipped(Path.of(System.getProperty("java.io.tmpdir")));
	}

	/**
	 * Copy the shipped server out of the jar into a directory of this user's under the
	 * given one, unless a copy of the same content is there already.
	 * @param temporaryDirectory the directory to make this user's directory in
	 * @return the executable, or {@code null} when none is shipped for this platform
	 */
	static @Nullable Path shipped(Path temporaryDirectory) {
		String resource = shippedResource();
		if (resource == null) {
			return null;
		}
		// The resource names carry the version the artifact claims; the binaries of
		// 1.4.3 report 6.2.11 (linux-amd64) when asked.
		try (InputStream in = RedisExecutable.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				return null;
			}
			return copyOut(resource, in.readAllBytes(), ownDirectory(temporaryDirectory));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot copy " + resource + " out of " + EMBEDDED_ARTIFACT, ex);
		}
	}

	/**
	 * Copy the binary into the directory once per content. A copy found there runs only
	 * when its SHA-256 digest is the shipped content's, never by its name or size alone.
	 * A concurrent build may be copying the same file, so each copy goes to a file of its
	 * own and is renamed into place atomically.
	 */
	private static Path copyOut(String resource, byte[] content, Path directory) throws IOException {
		Path target = directory.resolve("redq-embedded-" + resource);
		if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && Files.isExecutable(target)
				&& Arrays.equals(sha256(Files.readAllBytes(target)), sha256(content))) {
			return target;
		}
		Path copy = Files.createTempFile(directory, "redq-embedded-", ".tmp");
		try {
			Files.write(copy, content);
			if (!copy.toFile().setExecutable(true, true)) {
				throw new IOException("Cannot make " + copy + " executable");
			}
			Files.move(copy, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		}
		finally {
			Files.deleteIfExists(copy);
		}
		return target;
	}

	/**
	 * Return this user's directory under the given one, {@code redq-<user>}, made with
	 * owner-only permissions: in a directory that others can write, such as {@code /tmp},
	 * a file under a predictable name could be another user's program. An existing one
	 * that is a link or another user's is refused; one of this user's is made owner-only.
	 */
	static Path ownDirectory(Path parent) throws IOException {
		String user = System.getProperty("user.name");
		Path directory = parent.resolve("redq-" + user.replaceAll("[^A-Za-z0-9._-]", "_"));
		if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
			return Files.createDirectories(directory);
		}
		try {
			Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
		}
		catch (FileAlreadyExistsException ex) {
			// made by an earlier build: checked below
		}
		PosixFileAttributes attributes = Files.readAttributes(directory, PosixFileAttributes.class,
				LinkOption.NOFOLLOW_LINKS);
		if (!attributes.isDirectory() || !attributes.owner().getName().equals(user)) {
			throw new IllegalStateException(directory + " must be a directory of user " + user + ", but it is "
					+ (attributes.isDirectory() ? "owned by " + attributes.owner().getName() : "not a directory")
					+ ": remove it, or set " + ENVIRONMENT_VARIABLE + " to a redis-server executable");
		}
		if (!attributes.permissions().equals(OWNER_ONLY)) {
			Files.setPosixFilePermissions(directory, OWNER_ONLY);
		}
		return directory;
	}

	private static byte[] sha256(byte[] content) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(content);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform has SHA-256", ex);
		}
	}

	private static @Nullable String shippedResource() {
		String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
		boolean amd64 = arch.equals("amd64") || arch.equals("x86_64");
		boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
		if (os.contains("linux")) {
			return amd64 ? "redis-server-6.2.6-v5-linux-amd64" : arm64 ? "redis-server-6.2.7-linux-arm64" : null;
		}
		if (os.contains("mac")) {
			return amd64 ? "redis-server-6.2.6-v5-darwin-amd64" : arm64 ? "redis-server-6.2.6-v5-darwin-arm64" : null;
		}
		return null;
	}

	private static String platform() {
		return System.getProperty("os.name") + "/" + System.getProperty("os.arch");
	}

}
