package io.redq.queue.autoconfigure.endpoint;

import java.util.Arrays;
import java.util.List;

import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.ChangeDescriptor;
import io.redq.queue.autoconfigure.endpoint.JobQueueDescriptors.QueueDescriptor;
import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.inspect.JobQueueInspector;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * The write operations of the {@link JobQueueEndpoint}: pause, resume and purge a queue;
 * retry and delete dead jobs; trigger and cancel pending jobs. Each first checks its
 * request: a queue this application does not know, an unknown section, too many ids or a
 * missing confirmation is the caller's mistake.
 *
 * @author Redq team
 */
class JobQueueEndpointActions {

	private final JobQueueInspector inspector;

	private final JobQueueOperations operations;

	JobQueueEndpointActions(JobQueueInspector inspector) {
		this.inspector = inspector;
		this.operations = inspector.getOperations();
	}

	QueueDescriptor pause(String queue, boolean paused) {
		requireKnown(queue);
		if (paused) {
			this.operations.pause(queue);
		}
		else {
			this.operations.resume(queue);
		}
		return QueueDescriptor.of(this.inspector.snapshot(queue));
	}

	QueueDescriptor purge(String queue, @Nullable String confirm) {
		requireKnown(queue);
		requireConfirmation(queue, confirm, "purge");
		this.operations.purge(queue);
		return QueueDescriptor.of(this.inspector.snapshot(queue));
	}

	ChangeDescriptor retryOrTrigger(String queue, String section, String @Nullable [] ids, @Nullable String confirm) {
		requireKnown(queue);
		requireSection(section, JobQueueEndpoint.DEAD, JobQueueEndpoint.JOBS);
		if (JobQueueEndpoint.DEAD.equals(section)) {
			requireIds(queue, ids, confirm, "retry every dead job of");
			return new ChangeDescriptor("retry", this.operations.retryDead(queue, list(ids)));
		}
		if (ids == null || ids.length == 0) {
			throw new InvalidEndpointRequestException("No ids", "Name the jobs to trigger in ids");
		}
		requireBatch(ids);
		long triggered = 0;
		for (String id : ids) {
			triggered += this.operations.trigger(queue, id) ? 1 : 0;
		}
		return new ChangeDescriptor("trigger", triggered);
	}

	ChangeDescriptor deleteDeadJobs(String queue, String dead, String @Nullable [] ids, @Nullable String confirm) {
		requireKnown(queue);
		requireSection(dead, JobQueueEndpoint.DEAD);
		requireIds(queue, ids, confirm, "delete every dead job of");
		return new ChangeDescriptor("delete", this.operations.deleteDead(queue, list(ids)));
	}

	ChangeDescriptor deleteOrCancel(String queue, String section, String id) {
		requireKnown(queue);
		requireSection(section, JobQueueEndpoint.DEAD, JobQueueEndpoint.JOBS);
		if (JobQueueEndpoint.DEAD.equals(section)) {
			return deleteDeadJobs(queue, section, new String[] { id }, null);
		}
		return new ChangeDescriptor("cancel", this.operations.cancel(queue, id) ? 1 : 0);
	}

	private void requireKnown(String queue) {
		if (!this.inspector.exists(queue)) {
			throw new InvalidEndpointRequestException("Unknown queue '" + queue + "'",
					"Neither a job of this application nor Redis uses queue '" + queue + "'; the queues are "
							+ this.inspector.queueNames());
		}
	}

	private static void requireSection(String section, String... allowed) {
		if (!Arrays.asList(allowed).contains(section)) {
			throw new InvalidEndpointRequestException("Unknown section '" + section + "'",
					"Expected " + String.join(" or ", allowed) + " after the queue name, not '" + section + "'");
		}
	}

	private static void requireIds(String queue, String @Nullable [] ids, @Nullable String confirm, String action) {
		if (ids == null || ids.length == 0) {
			requireConfirmation(queue, confirm, action);
		}
		else {
			requireBatch(ids);
		}
	}

	// bounded: the ids go to Redis in one script call
	private static void requireBatch(String[] ids) {
		if (ids.length > JobQueueEndpoint.MAX_IDS) {
			throw new InvalidEndpointRequestException("Too many ids: " + ids.length, ids.length + " ids given, at most "
					+ JobQueueEndpoint.MAX_IDS + " are taken at once: send the others in further requests");
		}
	}

	private static void requireConfirmation(String queue, @Nullable String confirm, String action) {
		if (!queue.equals(confirm)) {
			throw new InvalidEndpointRequestException("Unconfirmed request to " + action + " queue '" + queue + "'",
					"To " + action + " queue '" + queue + "', confirm with the parameter confirm=" + queue);
		}
	}

	private static List<String> list(String @Nullable [] ids) {
		return (ids != null) ? List.of(ids) : List.of();
	}

}
