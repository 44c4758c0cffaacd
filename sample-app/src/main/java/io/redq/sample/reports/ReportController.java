package io.redq.sample.reports;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The latest sales reports over HTTP.
 *
 * @author Redq team
 * @since 0.1.0
 */
@RestController
public class ReportController {

	private final SalesReports reports;

	public ReportController(SalesReports reports) {
		this.reports = reports;
	}

	/**
	 * Return the latest reports.
	 * @return up to 10 reports, newest first
	 */
	@GetMapping("/reports")
	public List<SalesReport> latest() {
		return this.reports.latest();
	}

}
