package io.redq.sample.images;

import java.util.NoSuchElementException;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.core.JobRequest;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.util.Assert;

/**
 * The uploaded images and their thumbnails.
 *
 * @author Redq team
 * @since 0.1.0
 */
@Service
public class Images {

	private final JdbcClient jdbc;

	private final JobDispatcher dispatcher;

	public Images(JdbcClient jdbc, JobDispatcher dispatcher) {
		this.jdbc = jdbc;
		this.dispatcher = dispatcher;
	}

	/**
	 * Save an uploaded image and have its thumbnail made.
	 * @param name the file name
	 * @return the image
	 */
	@Transactional
	public Image upload(String name) {
		Assert.isTrue(name != null && name.matches("[A-Za-z0-9._-]{1,200}"),
				() -> "name must be a file name of 1 to 200 letters, digits, '.', '_' or '-', but was '" + name + "'");
		KeyHolder key = new GeneratedKeyHolder();
		this.jdbc.sql("INSERT INTO image (name, status) VALUES (:name, 'UPLOADED')")
			.param("name", name)
			.update(key, "id");
		long id = key.getKeyAs(Long.class);
		this.dispatcher.dispatch(JobRequest.of(ThumbnailJobs.MAKE_THUMBNAIL, id).id("thumbnail-" + id).build());
		return find(id);
	}

	/**
	 * Return an image.
	 * @param id the image's id
	 * @return the image
	 * @throws NoSuchElementException when there is none with that id
	 */
	public Image find(long id) {
		return this.jdbc.sql("SELECT id, name, status, thumbnail, error FROM image WHERE id = :id")
			.param("id", id)
			.query(Image.class)
			.optional()
			.orElseThrow(() -> new NoSuchElementException("No image " + id));
	}

	void thumbnailMade(long id, String thumbnail) {
		this.jdbc.sql("UPDATE image SET status = 'DONE', thumbnail = :thumbnail WHERE id = :id")
			.param("thumbnail", thumbnail)
			.param("id", id)
			.update();
	}

	void thumbnailFailed(long id, String error) {
		this.jdbc.sql("UPDATE image SET status = 'FAILED', error = :error WHERE id = :id")
			.param("error", (error.length() > 1000) ? error.substring(0, 1000) : error)
			.param("id", id)
			.update();
	}

}
