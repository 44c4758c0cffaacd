package io.redq.queue.dashboard;

import java.util.List;

import io.redq.queue.inspect.InstanceView;
import io.redq.queue.inspect.JobQueueInspector;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's view of the live application instances and the queues each consumes.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
@RequestMapping("${redq.dashboard.path:/redq}/api/instances")
public class InstancesController {

	private final JobQueueInspector inspector;

	/**
	 * Create an instance.
	 * @param inspector the inspector the dashboard reads the instances through
	 */
	public InstancesController(JobQueueInspector inspector) {
		this.inspector = inspector;
	}

	@GetMapping("")
	List<InstanceJson> instances() {
		return this.inspector.read(() -> this.inspector.instances().stream().map(InstanceJson::of).toList());
	}

	/**
	 * An application instance and the queues it consumes; times in epoch milliseconds.
	 */
	record InstanceJson(String id, String application, String host, long pid, long startedAt, long heartbeatAt,
			List<InstanceView.ConsumedQueue> queues) {

		static InstanceJson of(InstanceView instance) {
			return new InstanceJson(instance.id(), instance.application(), instance.host(), instance.pid(),
					instance.startedAt().toEpochMilli(), instance.heartbeatAt().toEpochMilli(), instance.queues());
		}

	}

}
