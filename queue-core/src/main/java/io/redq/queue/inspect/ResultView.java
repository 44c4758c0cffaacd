package io.redq.queue.inspect;

/**
 * The stored result of a completed job, as its handler returned it in JSON, read up to
 * {@value JobQueueInspector#MAX_RESULT_READ} bytes.
 *
 * @param json the JSON text, or its first bytes when {@code truncated} (the last
 * character may be cut)
 * @param size the size of the whole result in bytes
 * @param truncated whether {@code json} holds only the result's first bytes
 * @author Redq team
 * @since 0.1.0
 */
public record ResultView(String json, long size, boolean truncated) {
}
