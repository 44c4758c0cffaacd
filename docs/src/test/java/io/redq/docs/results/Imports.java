package io.redq.docs.results;

import java.util.ArrayList;
import java.util.List;

import io.redq.queue.annotation.QueuedJob;
import io.redq.queue.listener.JobContext;

import org.springframework.stereotype.Service;

/**
 * The progress, iteration and step examples of the Results page, compiled for the page
 * that quotes them.
 *
 * @author Redq team
 */
@Service
class Imports {

	private final List<String> products = List.of("lamp", "desk", "chair");

	private final List<String> index = new ArrayList<>();

	private final Lines lines = (file, line) -> "order-" + line;

	private final List<String> orders = new ArrayList<>();

	private final List<String> sent = new ArrayList<>();

	// tag::progress[]
	@QueuedJob(name = "reindex", queue = "imports")
	void reindex(String catalog, JobContext context) {
		for (int i = 0; i < this.products.size(); i++) {
			this.index.add(this.products.get(i));
			context.reportProgress((i + 1.0) / this.products.size(), "indexed " + this.products.get(i));
		}
	}
	// end::progress[]

	// tag::iterate[]
	@QueuedJob(name = "import-orders", queue = "imports")
	void importOrders(String file, JobContext context) throws Exception {
		long count = this.lines.count(file);
		context.iterate(Long.class, 0L, (line) -> {
			this.orders.add(this.lines.read(file, line));
			context.reportProgress((line + 1.0) / count, null);
			return (line + 1 < count) ? line + 1 : null;
		});
	}
	// end::iterate[]

	// tag::step[]
	@QueuedJob(name = "month-end", queue = "imports")
	void monthEnd(String month, JobContext context) throws Exception {
		context.step("close", () -> this.orders.add("closed " + month));
		context.step("mail", () -> this.sent.add("statement " + month));
	}
	// end::step[]

	interface Lines {

		String read(String file, long line);

		default long count(String file) {
			return 3;
		}

	}

}
