package io.redq.docs.migrating;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The mailer of the "Migrating" examples: records what it sent.
 *
 * @author Redq team
 */
class Mailer {

	final List<String> sent = new CopyOnWriteArrayList<>();

	void sendWelcome(long userId, String idempotencyKey) {
		this.sent.add("welcome " + userId + " as " + idempotencyKey);
	}

	void sendIssue(String issue) {
		this.sent.add("issue " + issue);
	}

	void sendDigest(Instant tick) {
		this.sent.add("digest " + tick);
	}

}
