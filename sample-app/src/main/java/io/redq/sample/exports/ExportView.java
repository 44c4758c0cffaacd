package io.redq.sample.exports;

import io.redq.queue.core.JobStatus;
import org.jspecify.annotations.Nullable;

/**
 * An export as its caller sees it.
 *
 * @param id the export's job id
 * @param state where its job stands
 * @param progress how far it has come, from 0 to 1, while it runs and reported it
 * @param message what it did last, while it runs and reported it
 * @param result what it wrote, once it completed
 * @param error why it failed, once it died
 * @author Redq team
 * @since 0.1.0
 */
public record ExportView(String id, JobStatus.State state, @Nullable Double progress, @Nullable String message,
		@Nullable OrderExport result, @Nullable String error) {
}
