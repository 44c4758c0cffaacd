package io.redq.docs.transactions;

import io.redq.queue.core.DispatchResult;
import io.redq.queue.core.JobDispatcher;

import org.springframework.transaction.annotation.Transactional;

/**
 * The example of the Transactions page, compiled for the page that quotes it.
 *
 * @author Redq team
 */
class TransactionExamples {

	private final Orders orders;

	private final JobDispatcher dispatcher;

	TransactionExamples(Orders orders, JobDispatcher dispatcher) {
		this.orders = orders;
		this.dispatcher = dispatcher;
	}

	// @formatter:off
	// tag::place-order[]
	@Transactional
	public void placeOrder(Order order) {
		orders.save(order);
		DispatchResult result = dispatcher.dispatch("send-invoice", order.id()); // held until the commit
		result.id();      // final: the job will have this id
		result.outcome(); // DEFERRED: what Redis will do is not known yet
	}
	// end::place-order[]
	// @formatter:on

	record Order(String id) {
	}

	interface Orders {

		void save(Order order);

	}

}
