package io.redq.sample.images;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Images over HTTP; an upload here is its file name only. Writes take JSON only, which a
 * cross-site form cannot send.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
public class ImageController {

	private final Images images;

	private final Publications publications;

	public ImageController(Images images, Publications publications) {
		this.images = images;
		this.publications = publications;
	}

	/**
	 * Upload an image.
	 * @param request its file name
	 * @return the image, waiting for its thumbnail
	 */
	@PostMapping(path = "/images", consumes = MediaType.APPLICATION_JSON_VALUE)
	@ResponseStatus(HttpStatus.CREATED)
	public Image upload(@RequestBody Upload request) {
		return this.images.upload(request.name());
	}

	/**
	 * Return an image.
	 * @param id the image's id
	 * @return the image
	 */
	@GetMapping("/images/{id}")
	public Image image(@PathVariable long id) {
		return this.images.find(id);
	}

	/**
	 * Publish an image: resize, watermark and publish it as a chain. A {@code PUT}, which
	 * a cross-site form cannot send; publishing an image again changes nothing.
	 * @param id the image's id
	 * @return the publication
	 */
	@PutMapping("/images/{id}/publication")
	public Publication publish(@PathVariable long id) {
		return this.publications.publish(id);
	}

	/**
	 * Return an image's publication, with its chain's state and each step's.
	 * @param id the image's id
	 * @return the publication
	 */
	@GetMapping("/images/{id}/publication")
	public Publication publication(@PathVariable long id) {
		return this.publications.find(id);
	}

	/**
	 * An upload.
	 *
	 * @param name the image's file name
	 */
	public record Upload(String name) {
	}

}
