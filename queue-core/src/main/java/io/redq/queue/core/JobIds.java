package io.redq.queue.core;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Generates the ids of jobs dispatched without one: 22 URL-safe characters, a random
 * prefix chosen once per JVM followed by a counter, so ids never repeat within a JVM and
 * differ between JVMs. Shorter than a UUID string (the id is stored twice per pending
 * job) and free of the lock that {@link java.util.UUID#randomUUID()} takes on every call.
 *
 * @author Redq team
 * @since 0.1.0
 */
public final class JobIds {

	private static final SecureRandom RANDOM = new SecureRandom();

	private static final String PREFIX = encode(RANDOM.nextLong());

	private static final AtomicLong COUNTER = new AtomicLong(RANDOM.nextLong());

	private JobIds() {
	}

	/**
	 * Return a new job id.
	 * @return the id
	 */
	public static String next() {
		return PREFIX + encode(COUNTER.getAndIncrement());
	}

	private static String encode(long value) {
		return Base64.getUrlEncoder().withoutPadding().encodeToString(ByteBuffer.allocate(8).putLong(value).array());
	}

}
