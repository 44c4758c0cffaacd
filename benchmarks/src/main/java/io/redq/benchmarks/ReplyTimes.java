package io.redq.benchmarks;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;

import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * When Lettuce's event loop read each reply, on the wall clock of {@link RedisMonitor}:
 * Lettuce calls its command latency recorder on the event loop once it decoded a reply,
 * before it completes the command, with the time since the event loop wrote the command.
 * Only {@code idle-pickup} installs it ({@link Installed}), as it wraps every command.
 *
 * @author Redq team
 * @since 0.1.0
 */
final class ReplyTimes implements CommandLatencyRecorder {

	private final Queue<Reply> replies = new ConcurrentLinkedQueue<>();

	@Override
	public void recordCommandLatency(SocketAddress local, SocketAddress remote, ProtocolKeyword commandType,
			long firstResponseLatency, long completionLatency) {
		long now = RedisMonitor.now();
		if (local instanceof InetSocketAddress address) {
			this.replies.add(new Reply(address.getPort(), new String(commandType.getBytes(), StandardCharsets.US_ASCII),
					now - completionLatency / 1000, now));
		}
	}

	/**
	 * Take the replies read since the last call.
	 * @return the replies, in the order read
	 */
	List<Reply> drain() {
		List<Reply> drained = new ArrayList<>();
		for (Reply reply = this.replies.poll(); reply != null; reply = this.replies.poll()) {
			drained.add(reply);
		}
		return drained;
	}

	/**
	 * One reply read.
	 *
	 * @param port the local port of its connection
	 * @param command the command, e.g. {@code EVALSHA}
	 * @param sentMicros when the event loop wrote the command
	 * @param readMicros when it had read the reply
	 */
	record Reply(int port, String command, long sentMicros, long readMicros) {

	}

	/**
	 * Installs the recorder into the client resources Spring Boot builds, last, so that
	 * it replaces any other.
	 */
	static class Installed {

		@Bean
		ReplyTimes replyTimes() {
			return new ReplyTimes();
		}

		@Bean
		@Order(Ordered.LOWEST_PRECEDENCE)
		ClientResourcesBuilderCustomizer replyTimesCustomizer(ReplyTimes replyTimes) {
			return (builder) -> builder.commandLatencyRecorder(replyTimes);
		}

	}

}
