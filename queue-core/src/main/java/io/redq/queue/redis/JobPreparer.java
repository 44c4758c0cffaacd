package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.JobDefinition;
import io.redq.queue.core.JobDefinitions;
import io.redq.queue.core.JobIds;
import io.redq.queue.core.JobRequest;
import io.redq.queue.core.OutgoingJob;
import io.redq.queue.core.Uniqueness;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.util.Assert;

/**
 * The one way a request becomes a job to store: its definition, queue and id, the
 * dispatch interceptors, the payload's type check, the envelope and its size limit.
 * Dispatches, jobs written to a transactional outbox and recurring ticks all come through
 * here, so that each step sees every job.
 *
 * @author Redq team
 */
final class JobPreparer {

	private final JobDefinitions definitions;

	private final JsonMapper jsonMapper;

	private volatile long maxPayloadSize = RedisJobDispatcher.DEFAULT_MAX_PAYLOAD_SIZE;

	private volatile DispatchInterceptors interceptors = DispatchInterceptors.NONE;

	JobPreparer(JobDefinitions definitions, JsonMapper jsonMapper) {
		this.definitions = definitions;
		this.jsonMapper = jsonMapper;
	}

	void setMaxPayloadSize(long maxPayloadSize) {
		Assert.isTrue(maxPayloadSize > 0, "maxPayloadSize must be positive");
		this.maxPayloadSize = maxPayloadSize;
	}

	void setInterceptors(DispatchInterceptors interceptors) {
		this.interceptors = interceptors;
	}

	/**
	 * Check a request, pass it through the interceptors and write its job.
	 * @param request the job and its options
	 * @return the job, which tells the interceptors how its dispatch ends
	 * @throws IllegalArgumentException when the request is invalid
	 * @throws io.redq.queue.core.DispatchVetoedException when an interceptor vetoes it
	 */
	PreparedJob prepare(JobRequest request) {
		return prepare(request, null, Map.of());
	}

	/**
	 * Check a request, pass it through the interceptors and write its job, under a given
	 * id and with headers of Redq's own: for a batch's members and callbacks.
	 * @param request the job and its options
	 * @param id the job's id, or {@code null} for the request's
	 * @param extraHeaders headers added to the request's
	 * @return the job, which tells the interceptors how its dispatch ends
	 * @throws IllegalArgumentException when the request is invalid
	 * @throws io.redq.queue.core.DispatchVetoedException when an interceptor vetoes it
	 */
	PreparedJob prepare(JobRequest request, @Nullable String id, Map<String, String> extraHeaders) {
		JobDefinition definition = resolve(request);
		String queue = queue(request, definition);
		Map<String, String> headers = request.getHeaders();
		if (!extraHeaders.isEmpty()) {
			headers = new LinkedHashMap<>(headers);
			headers.putAll(extraHeaders);
		}
		String jobId = (id != null) ? id : id(request);
		DispatchInterceptors interceptors = this.interceptors;
		DispatchInterceptors.Interception interception = null;
		if (!interceptors.isEmpty()) {
			interception = interceptors
				.before(new OutgoingJob(definition.name(), queue, jobId, request.getPayload(), headers));
			headers = interception.job().getHeaders();
		}
		try {
			String body = body(request, definition, headers);
			// a given id is the job's whatever the request says: created once, kept after
			EnqueueCommand command = (id != null)
					? new EnqueueCommand(id, request.getDue(), DuplicatePolicy.KEEP, Uniqueness.UNTIL_COMPLETED, body)
					: command(request, jobId, body);
			return new PreparedJob(queue, definition.name(), jobId, command, interception);
		}
		catch (RuntimeException ex) {
			if (interception != null) {
				interception.failed(ex);
			}
			throw ex;
		}
	}

	/**
	 * Check a request and write its job without the interceptors: for a check only, or
	 * for the id and queue of a timer.
	 * @param request the job and its options
	 * @return the job's queue and command
	 * @throws IllegalArgumentException when the request is invalid
	 */
	PreparedCommand check(JobRequest request) {
		JobDefinition definition = resolve(request);
		String id = id(request);
		return new PreparedCommand(queue(request, definition),
				command(request, id, body(request, definition, request.getHeaders())));
	}

	/**
	 * Return a job's definition by name.
	 * @param jobName the job's name
	 * @return the definition
	 * @throws IllegalArgumentException when no job has that name
	 */
	JobDefinition find(String jobName) {
		return resolve(JobRequest.of(jobName, null).build());
	}

	private static String queue(JobRequest request, JobDefinition definition) {
		return (request.getQueue() != null) ? request.getQueue() : definition.queue();
	}

	private static String id(JobRequest request) {
		return (request.getId() != null) ? request.getId() : JobIds.next();
	}

	/** The enqueue command of a request: its own id, or a generated one. */
	private static EnqueueCommand command(JobRequest request, String id, String body) {
		return (request.getId() != null)
				? new EnqueueCommand(id, request.getDue(), request.getDuplicatePolicy(), request.getUniqueness(), body)
				: EnqueueCommand.withGeneratedId(id, request.getDue(), body);
	}

	private JobDefinition resolve(JobRequest request) {
		String jobName = request.getJobName();
		if (jobName == null) {
			return resolveByType(request.getPayload());
		}
		JobDefinition definition = this.definitions.find(jobName);
		if (definition == null) {
			throw new IllegalArgumentException("No job named '" + jobName + "' is known to this application. "
					+ "Declare a @QueuedJob(name = \"" + jobName + "\") method, or, for a job handled by another "
					+ "application, set redq.remote-jobs." + jobName + ".queue. Known jobs: " + knownJobs());
		}
		return definition;
	}

	private JobDefinition resolveByType(Object payload) {
		List<JobDefinition> candidates = this.definitions.all()
			.stream()
			.filter((definition) -> definition.payloadType() != null
					&& ResolvableType.forType(definition.payloadType()).isInstance(payload))
			.toList();
		if (candidates.size() != 1) {
			throw new IllegalArgumentException(((candidates.isEmpty()) ? "No job"
					: "More than one job ("
							+ candidates.stream().map(JobDefinition::name).collect(Collectors.joining(", ")) + ")")
					+ " takes a payload of type " + payload.getClass().getName()
					+ "; dispatch by job name instead. Known jobs: " + knownJobs());
		}
		return candidates.get(0);
	}

	private String body(JobRequest request, JobDefinition definition, Map<String, String> headers) {
		PayloadTypeCheck.check(definition, request.getPayload());
		int maxAttempts = (request.getMaxAttempts() != null) ? request.getMaxAttempts() : definition.maxAttempts();
		int priority = (request.getPriority() != null) ? request.getPriority() : definition.priority();
		String body = JobEnvelope
			.of(definition.name(), priority, request.getGroup(), maxAttempts, definition.timeout(), headers,
					this.jsonMapper.valueToTree(request.getPayload()))
			.body();
		// with the opening brace the body leaves out
		long size = body.getBytes(StandardCharsets.UTF_8).length + 1;
		if (size > this.maxPayloadSize) {
			throw new IllegalArgumentException("Job '" + definition.name() + "' is " + size
					+ " bytes as JSON, more than the limit of " + this.maxPayloadSize + " bytes "
					+ "(redq.dispatcher.max-payload-size). Store large data elsewhere and pass a reference to it");
		}
		return body;
	}

	private String knownJobs() {
		return this.definitions.all().stream().map(JobDefinition::name).sorted().toList().toString();
	}

}
