package io.redq.sample.exports;

import java.time.Duration;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Order exports over HTTP: start one, then watch its progress or wait for its result.
 * Writes take JSON only, which a cross-site form cannot send.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
public class ExportController {

	private final OrderExports exports;

	public ExportController(OrderExports exports) {
		this.exports = exports;
	}

	/**
	 * Start an export of a customer's orders.
	 * @param request whose orders
	 * @return the export's job id and where to follow it
	 */
	@PostMapping(path = "/exports", consumes = MediaType.APPLICATION_JSON_VALUE)
	@ResponseStatus(HttpStatus.ACCEPTED)
	public NewExport start(@RequestBody ExportRequest request) {
		String id = this.exports.start(request.email());
		return new NewExport(id, "/exports/" + id);
	}

	/**
	 * Return where an export stands.
	 * @param id the export's job id
	 * @param wait how long to wait for its result ({@code 2s}, {@code 500ms}; at most
	 * {@code 30s}), or none to answer at once
	 * @return the export: its result once it completed, else its progress
	 * @throws InterruptedException when the request's thread is interrupted while it
	 * waits
	 */
	@GetMapping("/exports/{id}")
	public ExportView find(@PathVariable String id, @RequestParam(defaultValue = "0s") String wait)
			throws InterruptedException {
		Duration timeout;
		try {
			timeout = DurationStyle.detectAndParse(wait);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("wait must be a duration such as 2s or 500ms, but was '" + wait + "'");
		}
		return this.exports.find(id, timeout);
	}

	/**
	 * An export to start.
	 *
	 * @param email whose orders to export
	 */
	public record ExportRequest(String email) {
	}

	/**
	 * An export that was started.
	 *
	 * @param id its job id
	 * @param location where to follow it
	 */
	public record NewExport(String id, String location) {
	}

}
