package io.redq.sample.imports;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Contact imports over HTTP; an import here is its number of rows. Writes take JSON only,
 * which a cross-site form cannot send.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
public class ImportController {

	private final ContactImports imports;

	public ImportController(ContactImports imports) {
		this.imports = imports;
	}

	/**
	 * Start an import.
	 * @param request whose import, and how many rows
	 * @return the same
	 */
	@PostMapping(path = "/imports", consumes = MediaType.APPLICATION_JSON_VALUE)
	@ResponseStatus(HttpStatus.ACCEPTED)
	public NewImport start(@RequestBody NewImport request) {
		this.imports.start(request.tenant(), request.rows());
		return request;
	}

	/**
	 * An import to start.
	 *
	 * @param tenant whose import it is
	 * @param rows how many rows it has
	 */
	public record NewImport(String tenant, int rows) {
	}

}
