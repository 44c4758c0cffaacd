package io.redq.queue.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.redq.queue.support.micrometer.DefaultJobDispatchObservationConvention;
import io.redq.queue.support.micrometer.JobDispatchObservationConvention;
import io.redq.queue.support.micrometer.JobDispatchSenderContext;
import io.redq.queue.support.micrometer.JobObservation;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.util.Assert;

/**
 * {@link JobDispatcher} that enqueues jobs in Redis through {@link JobQueueOperations}.
 *
 * @author Redq team
 * @since 0.1.0
 */
public class RedisJobDispatcher implements JobDispatcher {

	/** The default largest envelope accepted, in bytes: 1 MiB. */
	public static final long DEFAULT_MAX_PAYLOAD_SIZE = 1024 * 1024;

	/** The most jobs enqueued by one script call. */
	static final int BATCH_SIZE = 1000;

	private final JobQueueOperations operations;

	private final JobDefinitions definitions;

	private final JsonMapper jsonMapper;

	private long maxPayloadSize = DEFAULT_MAX_PAYLOAD_SIZE;

	private JobMetrics metrics = JobMetrics.NONE;

	private boolean observationEnabled;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable JobDispatchObservationConvention observationConvention;

	/**
	 * Create an instance.
	 * @param operations the queue operations
	 * @param definitions the known jobs
	 * @param jsonMapper the mapper that writes payloads as JSON
	 */
	public RedisJobDispatcher(JobQueueOperations operations, JobDefinitions definitions, JsonMapper jsonMapper) {
		this.operations = operations;
		this.definitions = definitions;
		this.jsonMapper = jsonMapper;
	}

	/**
	 * Set the largest job envelope (payload and metadata as JSON) accepted, in bytes;
	 * larger ones are rejected.
	 * <p>
	 * Default 1 MiB.
	 * @param maxPayloadSize the limit in bytes
	 */
	public void setMaxPayloadSize(long maxPayloadSize) {
		Assert.isTrue(maxPayloadSize > 0, "maxPayloadSize must be positive");
		this.maxPayloadSize = maxPayloadSize;
	}

	/**
	 * Set the metrics to report dispatches to.
	 * <p>
	 * Default {@link JobMetrics#NONE}.
	 * @param metrics the metrics
	 */
	public void setMetrics(JobMetrics metrics) {
		this.metrics = metrics;
	}

	/**
	 * Set whether each dispatched job is observed with the {@link ObservationRegistry},
	 * as {@link JobObservation#DISPATCH}, so that a tracer writes the trace context into
	 * the job's headers.
	 * <p>
	 * Default {@code false}.
	 * @param observationEnabled whether to observe dispatches
	 */
	public void setObservationEnabled(boolean observationEnabled) {
		this.observationEnabled = observationEnabled;
	}

	/**
	 * Set the registry that observes dispatches when observation is enabled.
	 * <p>
	 * Default {@link ObservationRegistry#NOOP}.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	/**
	 * Set the convention that names and tags the dispatch observations.
	 * <p>
	 * Default {@code null}: {@link DefaultJobDispatchObservationConvention}.
	 * @param observationConvention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(@Nullable JobDispatchObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	@Override
	public List<String> dispatchAll(Collection<JobRequest> requests) {
		List<String> ids = new ArrayList<>(requests.size());
		Map<String, List<EnqueueCommand>> byQueue = new LinkedHashMap<>();
		Map<String, List<String>> jobsByQueue = new LinkedHashMap<>();
		// one observation per job, as each job has its own name and queue; it ends when
		// its queue's batch is in Redis
		Map<String, List<Observation>> observationsByQueue = new LinkedHashMap<>();
		try {
			for (JobRequest request : requests) {
				JobDefinition definition = resolve(request);
				String queue = (request.getQueue() != null) ? request.getQueue() : definition.queue();
				String id = (request.getId() != null) ? request.getId() : JobIds.next();
				Map<String, String> headers = request.getHeaders();
				if (this.observationEnabled) {
					// a tracer adds the trace context to the headers as the
					// observation starts
					headers = new LinkedHashMap<>(headers);
					observationsByQueue.computeIfAbsent(queue, (name) -> new ArrayList<>())
						.add(startObservation(headers, queue, definition.name(), id));
				}
				String body = body(request, definition, headers);
				byQueue.computeIfAbsent(queue, (name) -> new ArrayList<>())
					.add((request.getId() != null)
							? new EnqueueCommand(id, request.getDue(), request.getDuplicatePolicy(),
									request.getUniqueness(), body)
							: EnqueueCommand.withGeneratedId(id, request.getDue(), body));
				jobsByQueue.computeIfAbsent(queue, (name) -> new ArrayList<>()).add(definition.name());
				ids.add(id);
			}
			byQueue.forEach((queue, commands) -> {
				for (int from = 0; from < commands.size(); from += BATCH_SIZE) {
					this.operations.enqueue(queue,
							commands.subList(from, Math.min(commands.size(), from + BATCH_SIZE)));
				}
				jobsByQueue.get(queue).forEach((job) -> this.metrics.dispatched(queue, job));
				List<Observation> observations = observationsByQueue.remove(queue);
				if (observations != null) {
					observations.forEach(Observation::stop);
				}
			});
		}
		catch (RuntimeException ex) {
			observationsByQueue.values()
				.forEach((observations) -> observations.forEach((observation) -> observation.error(ex).stop()));
			throw ex;
		}
		return ids;
	}

	private Observation startObservation(Map<String, String> headers, String queue, String jobName, String id) {
		return JobObservation.DISPATCH.start(this.observationConvention,
				DefaultJobDispatchObservationConvention.INSTANCE,
				() -> new JobDispatchSenderContext(headers, queue, jobName, id), this.observationRegistry);
	}

	@Override
	public boolean cancel(String queue, String id) {
		return this.operations.cancel(QueueNames.validate(queue), id);
	}

	@Override
	public String schedule(String jobName, Object key, Instant at) {
		return dispatch(JobRequest.of(jobName, key).id(timerId(jobName, key), DuplicatePolicy.REPLACE).at(at).build());
	}

	@Override
	public boolean reschedule(String jobName, Object key, Instant at) {
		return this.operations.reschedule(find(jobName).queue(), timerId(jobName, key), EnqueueCommand.Due.at(at));
	}

	@Override
	public boolean cancelTimer(String jobName, Object key) {
		return this.operations.cancel(find(jobName).queue(), timerId(jobName, key));
	}

	@Override
	public Optional<Timer> findTimer(String jobName, Object key) {
		String id = timerId(jobName, key);
		JobStatus status = this.operations.status(find(jobName).queue(), id);
		return switch (status.state()) {
			case DELAYED -> Optional.of(new Timer(id, status.at(), Duration.between(status.redisTime(), status.at())));
			case READY -> Optional.of(new Timer(id, status.redisTime(), Duration.ZERO));
			default -> Optional.empty();
		};
	}

	private static String timerId(String jobName, Object key) {
		return QueueNames.validateId(jobName + ":" + key);
	}

	private JobDefinition find(String jobName) {
		return resolve(JobRequest.of(jobName, null).build());
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
					+ "application, set redq.jobs." + jobName + ".queue. Known jobs: " + knownJobs());
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
		int maxAttempts = (request.getMaxAttempts() != null) ? request.getMaxAttempts() : definition.maxAttempts();
		JobEnvelope envelope = new JobEnvelope(null, null, definition.name(), maxAttempts,
				definition.timeout().toMillis(), headers, this.jsonMapper.valueToTree(request.getPayload()));
		String json = this.jsonMapper.writeValueAsString(envelope);
		long size = json.getBytes(StandardCharsets.UTF_8).length;
		if (size > this.maxPayloadSize) {
			throw new IllegalArgumentException("Job '" + definition.name() + "' is " + size
					+ " bytes as JSON, more than the limit of " + this.maxPayloadSize + " bytes "
					+ "(redq.dispatcher.max-payload-size). Store large data elsewhere and pass a reference to it");
		}
		// the enqueue script prepends the Redis-clock times to the object
		return json.substring(1);
	}

	private String knownJobs() {
		return this.definitions.all().stream().map(JobDefinition::name).sorted().toList().toString();
	}

}
