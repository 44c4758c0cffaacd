package io.redq.queue.inspect;

import java.util.List;

/**
 * What a search found.
 *
 * @param jobs the jobs found, at most the limit asked for
 * @param complete whether every job was looked at; {@code false} when the search stopped
 * at its limit or at the most entries one search reads
 * @author Redq team
 * @since 0.1.0
 */
public record SearchResult(List<JobView> jobs, boolean complete) {
}
