package io.redq.queue.core;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JobIds}.
 *
 * @author Redq team
 */
class JobIdsTests {

	@Test
	void idsAreShortUrlSafeAndNeverRepeatAcrossThreads() {
		Set<String> ids = ConcurrentHashMap.newKeySet();
		IntStream.range(0, 200_000).parallel().forEach((i) -> ids.add(JobIds.next()));
		assertThat(ids).hasSize(200_000).allMatch((id) -> id.length() == 22 && id.matches("[A-Za-z0-9_-]+"));
	}

}
