package io.redq.queue.outbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.redq.queue.core.BatchDeathPolicy;
import io.redq.queue.core.Due;
import io.redq.queue.core.DuplicatePolicy;
import io.redq.queue.core.Uniqueness;
import io.redq.queue.redis.BatchCommand;
import io.redq.queue.redis.ChainCommand;
import io.redq.queue.redis.EnqueueCommand;
import io.redq.queue.redis.JobEnvelope;
import io.redq.queue.redis.PreparedCommand;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The wire format of an outbox row's {@code steps} column, Redq's own: JSON written and
 * read by a mapper of Redq's with fixed settings, never the application's, field by
 * field, so that a change of {@code spring.jackson.*} or of an internal class between
 * deploys leaves waiting rows readable. Version {@value #VERSION}:
 *
 * <pre class="code">
 * {"v":1,"steps":[
 *   {"op":"enqueue","jobs":[{"id":"a1","delay":0,"ifPending":"keep","unique":"until-completed","body":"..."}]},
 *   {"op":"cancel","id":"a1"},
 *   {"op":"reschedule","id":"close-auction:42","at":1767225600000}]}
 * </pre>
 *
 * A job's due time is {@code delay} (ms after the relay's send) or {@code at} (epoch ms);
 * {@code body} is the job's envelope as the enqueue script takes it, opaque here. Version
 * 2 adds batches, each a step of its own whose members and callbacks name their queues:
 *
 * <pre class="code">
 * {"v":2,"steps":[{"op":"batch","id":"b1","deathPolicy":"carry-on","linger":86400000,
 *   "members":[{"queue":"mail","id":"a1","delay":0,...}],"onComplete":{"queue":"reports","id":"b1:complete",...}}]}
 * </pre>
 *
 * Version 3 adds chains, each a step of its own whose steps and on-failure job name their
 * queues:
 *
 * <pre class="code">
 * {"v":3,"steps":[{"op":"chain","id":"c1","linger":86400000,
 *   "steps":[{"queue":"images","id":"c1:1","delay":0,...}],"onFailure":{"queue":"images","id":"c1:failure",...}}]}
 * </pre>
 *
 * Version 4 adds nesting beyond a chain's batch step of jobs: a member that is a batch or
 * a chain names the queue {@code {batch}} or {@code {chain}} (as a chain's batch step
 * does since version 3), its body the nested workflow as Redis keeps it until it is
 * created (see {@code BatchCommand#nest()}).
 * <p>
 * A row is written as the lowest version that holds its steps: without a batch or a chain
 * as version 1, which the versions from before batches read, without a chain as version
 * 2, which the versions from before chains in transactions read, without nesting deeper
 * than a chain's batch step of jobs as version 3, which the versions from before deeper
 * nesting read. A row of a version this class does not read is refused with a reason, so
 * that the relay moves it aside rather than guess.
 *
 * @author Redq team
 */
final class OutboxFormat {

	/** The newest version that this class writes and reads: version 3 with nesting. */
	static final int VERSION = 4;

	/** The version of the rows without a batch or a chain. */
	private static final int WITHOUT_BATCHES = 1;

	/** The version of the rows with a batch and without a chain. */
	private static final int WITHOUT_CHAINS = 2;

	/**
	 * The version of the rows with a chain and without nesting deeper than a chain's
	 * batch step of jobs.
	 */
	private static final int WITHOUT_NESTING = 3;

	/** Redq's own mapper: the application's settings never reach the rows. */
	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private OutboxFormat() {
	}

	/**
	 * Write the steps of a row.
	 * @param steps the steps, in order
	 * @return the JSON
	 */
	static String write(List<OutboxStep> steps) {
		ObjectNode row = MAPPER.createObjectNode();
		row.put("v", version(steps));
		ArrayNode array = row.putArray("steps");
		for (OutboxStep step : steps) {
			ObjectNode node = array.addObject();
			if (step instanceof OutboxStep.Enqueue enqueue) {
				node.put("op", "enqueue");
				ArrayNode jobs = node.putArray("jobs");
				enqueue.commands().forEach((job) -> write(job, jobs.addObject()));
			}
			else if (step instanceof OutboxStep.Batch batch) {
				write(batch.batch(), node.put("op", "batch"));
			}
			else if (step instanceof OutboxStep.Chain chain) {
				write(chain.chain(), node.put("op", "chain"));
			}
			else if (step instanceof OutboxStep.Cancel cancel) {
				node.put("op", "cancel").put("id", cancel.id());
			}
			else {
				OutboxStep.Reschedule reschedule = (OutboxStep.Reschedule) step;
				node.put("op", "reschedule").put("id", reschedule.id()).put("at", reschedule.at());
			}
		}
		return MAPPER.writeValueAsString(row);
	}

	/**
	 * Return the lowest version that holds the steps: a version that reads a batch step
	 * of a chain reads nothing deeper.
	 */
	private static int version(List<OutboxStep> steps) {
		int version = WITHOUT_BATCHES;
		for (OutboxStep step : steps) {
			if (step instanceof OutboxStep.Batch batch) {
				version = Math.max(version, (batch.batch().depth() > 1) ? VERSION : WITHOUT_CHAINS);
			}
			else if (step instanceof OutboxStep.Chain chain) {
				version = Math.max(version, (chain.chain().depth() > 2) ? VERSION : WITHOUT_NESTING);
			}
		}
		return version;
	}

	private static void write(EnqueueCommand job, ObjectNode node) {
		node.put("id", job.id());
		node.put(job.due().absolute() ? "at" : "delay", job.due().millis());
		// a generated id was free: a row sent again after Redis forgot it keeps the job
		DuplicatePolicy policy = job.generatedId() ? DuplicatePolicy.KEEP : job.policy();
		node.put("ifPending", name(policy));
		node.put("unique", name(job.uniqueness()));
		node.put("body", job.body());
	}

	private static void write(BatchCommand batch, ObjectNode node) {
		node.put("id", batch.id());
		node.put("deathPolicy", name(batch.deathPolicy()));
		node.put("linger", batch.linger().toMillis());
		ArrayNode members = node.putArray("members");
		batch.members().forEach((member) -> write(member, members.addObject()));
		if (batch.onSuccess() != null) {
			write(batch.onSuccess(), node.putObject("onSuccess"));
		}
		if (batch.onComplete() != null) {
			write(batch.onComplete(), node.putObject("onComplete"));
		}
	}

	private static void write(ChainCommand chain, ObjectNode node) {
		node.put("id", chain.id());
		node.put("linger", chain.linger().toMillis());
		ArrayNode steps = node.putArray("steps");
		chain.steps().forEach((step) -> write(step, steps.addObject()));
		if (chain.onFailure() != null) {
			write(chain.onFailure(), node.putObject("onFailure"));
		}
	}

	private static void write(PreparedCommand job, ObjectNode node) {
		node.put("queue", job.queue());
		write(job.command(), node);
	}

	private static String name(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * Read the steps of a row.
	 * @param json the {@code steps} column
	 * @return the steps, in order
	 * @throws IllegalArgumentException when the row is not of this version or not
	 * readable, with the reason
	 */
	static List<OutboxStep> read(String json) {
		JsonNode row;
		try {
			row = MAPPER.readTree(json);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("The row is not JSON: " + ex.getOriginalMessage(), ex);
		}
		JsonNode version = row.path("v");
		if (!version.isIntegralNumber() || version.asInt() < WITHOUT_BATCHES || version.asInt() > VERSION) {
			throw new IllegalArgumentException("The row is of format version " + version
					+ ", which this version of Redq does not read (it reads versions " + WITHOUT_BATCHES + " to "
					+ VERSION
					+ "): it was written by another version of the application. Relay it from an instance that reads "
					+ "it, or move it back once one runs");
		}
		List<OutboxStep> steps = new ArrayList<>();
		for (JsonNode step : required(row, "steps")) {
			String op = text(step, "op");
			steps.add(switch (op) {
				case "enqueue" -> {
					List<EnqueueCommand> jobs = new ArrayList<>();
					required(step, "jobs").forEach((job) -> jobs.add(job(job)));
					yield new OutboxStep.Enqueue(jobs);
				}
				case "batch" -> new OutboxStep.Batch(batch(step));
				case "chain" -> new OutboxStep.Chain(chain(step));
				case "cancel" -> new OutboxStep.Cancel(text(step, "id"));
				case "reschedule" -> new OutboxStep.Reschedule(text(step, "id"), number(step, "at"));
				default ->
					throw new IllegalArgumentException("Unknown step '" + op + "' in a row of version " + version);
			});
		}
		return steps;
	}

	/**
	 * Return the names of the jobs that a row dispatches, for an operator to tell rows
	 * apart: each name once, in order.
	 * @param json the {@code steps} column
	 * @return the names, empty when the row only calls timers or is not readable by this
	 * version (its reason says why)
	 */
	static List<String> jobNames(String json) {
		Set<String> names = new LinkedHashSet<>();
		try {
			for (OutboxStep step : read(json)) {
				if (step instanceof OutboxStep.Enqueue enqueue) {
					// a body is the envelope without its opening brace, see
					// JobEnvelope#body
					enqueue.commands().forEach((job) -> names.add(JobEnvelope.read("{" + job.body()).job()));
				}
				else if (step instanceof OutboxStep.Batch batch) {
					batch.batch()
						.jobs()
						.forEach((job) -> names.add(JobEnvelope.read("{" + job.command().body()).job()));
				}
				else if (step instanceof OutboxStep.Chain chain) {
					chain.chain()
						.jobs()
						.forEach((job) -> names.add(JobEnvelope.read("{" + job.command().body()).job()));
				}
			}
		}
		catch (IllegalArgumentException | JacksonException ex) {
			return List.of();
		}
		return List.copyOf(names);
	}

	private static EnqueueCommand job(JsonNode job) {
		Due due = job.has("at") ? new Due(true, number(job, "at")) : new Due(false, number(job, "delay"));
		return new EnqueueCommand(text(job, "id"), due, named(DuplicatePolicy.class, text(job, "ifPending")),
				named(Uniqueness.class, text(job, "unique")), text(job, "body"));
	}

	private static BatchCommand batch(JsonNode step) {
		List<PreparedCommand> members = new ArrayList<>();
		required(step, "members").forEach((member) -> members.add(queued(member)));
		if (members.isEmpty()) {
			throw new IllegalArgumentException("A batch without members in " + step);
		}
		return new BatchCommand(text(step, "id"), named(BatchDeathPolicy.class, text(step, "deathPolicy")),
				Duration.ofMillis(number(step, "linger")), members, callback(step, "onSuccess"),
				callback(step, "onComplete"));
	}

	private static ChainCommand chain(JsonNode step) {
		List<PreparedCommand> steps = new ArrayList<>();
		required(step, "steps").forEach((job) -> steps.add(queued(job)));
		if (steps.size() < 2) {
			throw new IllegalArgumentException("A chain of fewer than 2 steps in " + step);
		}
		return new ChainCommand(text(step, "id"), Duration.ofMillis(number(step, "linger")), steps,
				callback(step, "onFailure"));
	}

	private static @Nullable PreparedCommand callback(JsonNode step, String field) {
		JsonNode callback = step.path(field);
		return callback.isMissingNode() ? null : queued(callback);
	}

	private static PreparedCommand queued(JsonNode job) {
		return new PreparedCommand(text(job, "queue"), job(job));
	}

	private static JsonNode required(JsonNode node, String field) {
		JsonNode value = node.path(field);
		if (!value.isArray()) {
			throw new IllegalArgumentException("Field '" + field + "' is missing or not an array in " + node);
		}
		return value;
	}

	private static String text(JsonNode node, String field) {
		JsonNode value = node.path(field);
		if (!value.isString()) {
			throw new IllegalArgumentException("Field '" + field + "' is missing or not a string in " + node);
		}
		return value.stringValue();
	}

	private static long number(JsonNode node, String field) {
		JsonNode value = node.path(field);
		if (!value.isIntegralNumber()) {
			throw new IllegalArgumentException("Field '" + field + "' is missing or not a number in " + node);
		}
		return value.asLong();
	}

	private static <E extends Enum<E>> E named(Class<E> type, String name) {
		try {
			return Enum.valueOf(type, name.toUpperCase(Locale.ROOT).replace('-', '_'));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Unknown " + type.getSimpleName() + " '" + name + "'", ex);
		}
	}

}
