package io.redq.docs.migrating;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The orders of the "Migrating" examples: records the orders cancelled.
 *
 * @author Redq team
 */
class Orders {

	final List<String> cancelled = new CopyOnWriteArrayList<>();

	void cancelIfUnpaid(String orderId) {
		this.cancelled.add(orderId);
	}

}
