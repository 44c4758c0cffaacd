package io.redq.sample.load;

import io.redq.sample.load.LoadGenerator.LoadStatus;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The load generator over HTTP: {@code curl -X PUT 'http://127.0.0.1:8080/load?rate=50'}
 * starts it, {@code rate=0} stops it. A {@code PUT}, which a cross-site form cannot send.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
public class LoadController {

	private final LoadGenerator generator;

	public LoadController(LoadGenerator generator) {
		this.generator = generator;
	}

	/**
	 * Return the rate, the mix and what ran so far.
	 * @return the status
	 */
	@GetMapping("/load")
	public LoadStatus status() {
		return this.generator.status();
	}

	/**
	 * Set the rate.
	 * @param rate steps per second, 0 to stop
	 * @return the status
	 */
	@PutMapping("/load")
	public LoadStatus setRate(@RequestParam int rate) {
		this.generator.setRate(rate);
		return this.generator.status();
	}

}
