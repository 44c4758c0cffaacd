package io.redq.sample.images;

import java.time.Instant;
import java.util.List;
import java.util.NoSuchElementException;

import io.redq.queue.core.ChainRequest;
import io.redq.queue.core.ChainResult;
import io.redq.queue.core.ChainStatus;
import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;
import io.redq.sample.images.Publication.Status;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * Publishes images as a chain: resize, then watermark, then publish, each step starting
 * only once the one before succeeded; a step that dies ends the chain, and its on-failure
 * job marks the publication broken.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Service
public class Publications {

	private final JdbcClient jdbc;

	private final JobDispatcher dispatcher;

	private final Images images;

	public Publications(JdbcClient jdbc, JobDispatcher dispatcher, Images images) {
		this.jdbc = jdbc;
		this.dispatcher = dispatcher;
		this.images = images;
	}

	/**
	 * Publish an image: dispatch its chain. Publishing an image again changes nothing.
	 * Not in a transaction: a chain is dispatched as it is called.
	 * @param imageId the image
	 * @return the publication
	 * @throws NoSuchElementException when there is no image with that id
	 */
	public Publication publish(long imageId) {
		this.images.find(imageId);
		try {
			this.jdbc.sql("INSERT INTO image_publication (image_id, status) VALUES (:id, 'PUBLISHING')")
				.param("id", imageId)
				.update();
		}
		catch (DuplicateKeyException ex) {
			return find(imageId);
		}
		ChainResult chain;
		try {
			chain = this.dispatcher.dispatchChain(ChainRequest
				.of(JobRequest.of(PublicationJobs.RESIZE_IMAGE, imageId).build(),
						JobRequest.of(PublicationJobs.WATERMARK_IMAGE, imageId).build(),
						JobRequest.of(PublicationJobs.PUBLISH_IMAGE, imageId).build())
				.onFailure(JobRequest.of(PublicationJobs.REPORT_BROKEN_IMAGE, imageId).build())
				.build());
		}
		catch (RuntimeException ex) {
			// Redis did not take the whole chain: its first steps may run all the same
			// (and publish the image), the publication is not followed any further
			broken(imageId, "The chain was not dispatched: " + ex.getMessage());
			throw ex;
		}
		this.jdbc.sql("UPDATE image_publication SET chain_id = :chain WHERE image_id = :id")
			.param("chain", chain.chainId())
			.param("id", imageId)
			.update();
		return find(imageId);
	}

	/**
	 * Return an image's publication, with its chain while Redq keeps it.
	 * @param imageId the image
	 * @return the publication
	 * @throws NoSuchElementException when the image was never published
	 */
	public Publication find(long imageId) {
		Row row = this.jdbc.sql("SELECT chain_id, status, url, error FROM image_publication WHERE image_id = :id")
			.param("id", imageId)
			.query(Row.class)
			.optional()
			.orElseThrow(() -> new NoSuchElementException("Image " + imageId + " was not published"));
		ChainStatus chain = (row.chainId() != null) ? this.dispatcher.findChain(row.chainId()).orElse(null) : null;
		return new Publication(imageId, row.status(), row.url(), row.error(), chain);
	}

	/**
	 * Return the steps of an image's publication that ran to their end.
	 * @param imageId the image
	 * @return the steps, in the order they ended
	 */
	public List<Step> steps(long imageId) {
		return this.jdbc
			.sql("SELECT step, started_at, finished_at FROM image_publication_step "
					+ "WHERE image_id = :id ORDER BY id")
			.param("id", imageId)
			.query(Step.class)
			.list();
	}

	void stepRan(long imageId, String step, Instant startedAt) {
		this.jdbc.sql("""
				INSERT INTO image_publication_step (image_id, step, started_at, finished_at)
				VALUES (:id, :step, :started, :finished)""")
			.param("id", imageId)
			.param("step", step)
			.param("started", startedAt)
			.param("finished", Instant.now())
			.update();
	}

	void published(long imageId, String url) {
		this.jdbc.sql("UPDATE image_publication SET status = 'PUBLISHED', url = :url WHERE image_id = :id")
			.param("url", url)
			.param("id", imageId)
			.update();
	}

	void broken(long imageId, String error) {
		this.jdbc.sql("UPDATE image_publication SET status = 'BROKEN', error = :error WHERE image_id = :id")
			.param("error", (error.length() > 1000) ? error.substring(0, 1000) : error)
			.param("id", imageId)
			.update();
	}

	private record Row(@Nullable String chainId, Status status, @Nullable String url, @Nullable String error) {
	}

	/**
	 * A step of a publication that ran to its end.
	 *
	 * @param step its name: {@code resize}, {@code watermark}, {@code publish} or
	 * {@code report-broken}
	 * @param startedAt when it started
	 * @param finishedAt when it ended
	 */
	public record Step(String step, Instant startedAt, Instant finishedAt) {
	}

}
