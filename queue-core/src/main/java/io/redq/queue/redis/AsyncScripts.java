package io.redq.queue.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs a script that returns a list or a number on a Lettuce connection without blocking,
 * so that a caller can stop waiting for a reply while the command stays in flight: as the
 * template's script executor does ({@code EVALSHA}, then {@code EVAL} when Redis does not
 * know the script), with the same results (strings and numbers) and errors, and sent
 * again while Redis refuses it during a failover (see {@link ScriptRefusals}).
 *
 * @author Redq team
 */
final class AsyncScripts {

	private static final LettuceExceptionConverter EXCEPTIONS = new LettuceExceptionConverter();

	private AsyncScripts() {
	}

	/**
	 * Run a script that returns a list.
	 * @param commands the connection
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return its reply, or the error translated as the template would
	 */
	static CompletableFuture<List<?>> run(RedisClusterAsyncCommands<byte[], byte[]> commands, RedisScript<?> script,
			List<String> keys, List<String> args) {
		return ScriptRefusals.retriedAsync(() -> runOnce(commands, script, keys, args));
	}

	/**
	 * Run a script that returns a list once, also when Redis refuses it (see
	 * {@link ScriptRefusals}), for a caller that sends it again elsewhere.
	 * @param commands the connection
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return its reply, or the error translated as the template would
	 */
	@SuppressWarnings("unchecked")
	static CompletableFuture<List<?>> runOnce(RedisClusterAsyncCommands<byte[], byte[]> commands, RedisScript<?> script,
			List<String> keys, List<String> args) {
		return send(commands, script, ScriptOutputType.MULTI, keys, args)
			.thenApply((result) -> decoded((List<Object>) result));
	}

	/**
	 * Run a script that returns a number.
	 * @param commands the connection
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return its reply, or the error translated as the template would
	 */
	static CompletableFuture<Long> runForLong(RedisClusterAsyncCommands<byte[], byte[]> commands,
			RedisScript<Long> script, List<String> keys, List<String> args) {
		return ScriptRefusals.retriedAsync(
				() -> send(commands, script, ScriptOutputType.INTEGER, keys, args).thenApply(Long.class::cast));
	}

	private static CompletableFuture<Object> send(RedisClusterAsyncCommands<byte[], byte[]> commands,
			RedisScript<?> script, ScriptOutputType type, List<String> keys, List<String> args) {
		byte[][] keyBytes = bytes(keys);
		byte[][] argBytes = bytes(args);
		CompletableFuture<Object> reply = commands.evalsha(script.getSha1(), type, keyBytes, argBytes)
			.handle((result, ex) -> (ex != null && cause(ex) instanceof RedisNoScriptException)
					? commands.eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8), type, keyBytes,
							argBytes)
					: (ex != null) ? CompletableFuture.failedFuture(cause(ex))
							: CompletableFuture.completedFuture(result))
			.thenCompose((stage) -> stage)
			.toCompletableFuture();
		return reply.handle((result, ex) -> {
			if (ex != null) {
				throw translated(cause(ex));
			}
			return result;
		});
	}

	/**
	 * Translate a failure of a Lettuce command as the template would, and a script's data
	 * model error as {@link QueueStore} does.
	 * @param ex the failure
	 * @return the exception to throw
	 */
	static RuntimeException translated(Throwable ex) {
		if (!(ex instanceof Exception exception)) {
			return new CompletionException(ex);
		}
		DataAccessException translated = EXCEPTIONS.convert(exception);
		if (translated == null) {
			return (ex instanceof RuntimeException runtime) ? runtime : new CompletionException(ex);
		}
		return QueueStore.dataModelErrorOr(translated);
	}

	private static Throwable cause(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	static List<?> decoded(List<Object> values) {
		List<Object> decoded = new ArrayList<>(values.size());
		for (Object value : values) {
			decoded.add(decoded(value));
		}
		return decoded;
	}

	@SuppressWarnings("unchecked")
	private static Object decoded(Object value) {
		if (value instanceof byte[] bytes) {
			return new String(bytes, StandardCharsets.UTF_8);
		}
		if (value instanceof List<?> list) {
			return decoded((List<Object>) list);
		}
		return value;
	}

	static byte[][] bytes(List<String> values) {
		byte[][] bytes = new byte[values.size()][];
		for (int i = 0; i < bytes.length; i++) {
			bytes[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
		}
		return bytes;
	}

}
