package io.redq.queue.inspect;

import java.time.Instant;
import java.util.List;

/**
 * One application instance as its latest heartbeat described it.
 *
 * @param id the instance id: application name, host, process id and a random part
 * @param application the application name
 * @param host the host name
 * @param pid the process id
 * @param startedAt when the instance started sending heartbeats
 * @param heartbeatAt its latest heartbeat, by the Redis clock
 * @param queues the queues it consumes, by name
 * @author Redq team
 * @since 0.1.0
 */
public record InstanceView(String id, String application, String host, long pid, Instant startedAt, Instant heartbeatAt,
		List<ConsumedQueue> queues) {

	/**
	 * A queue an instance consumes.
	 *
	 * @param queue the queue name
	 * @param concurrency how many of its jobs run at once
	 * @param inFlight how many of its jobs the instance holds: running, or reserved ahead
	 * and waiting for a worker
	 * @param running whether the instance's listener container of the queue runs
	 */
	public record ConsumedQueue(String queue, int concurrency, int inFlight, boolean running) {
	}

}
