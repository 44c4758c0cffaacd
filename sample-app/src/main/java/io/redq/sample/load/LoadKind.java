package io.redq.sample.load;

/**
 * The kinds of step the load generator runs; each step sets off one to three jobs.
 *
 * @author Redq team
 * @since 0.1.0
 */
public enum LoadKind {

	/**
	 * An order, paid at once three times in four: an invoice, a payment timer, and for a
	 * paid order a rate-limited partner call.
	 */
	ORDERS,

	/** A bid on the current auction; each auction also gets one late bid. */
	BIDS,

	/** An image upload; one in ten is corrupt and ends dead, one in ten is flaky. */
	IMAGES,

	/** An edit of a product, which debounces its reindex. */
	REINDEX,

	/** A password reset, at priority 8. */
	PASSWORD_RESETS,

	/** A newsletter to one reader, at priority 2. */
	NEWSLETTERS,

	/** A contact import row, four in five of a busy tenant's. */
	IMPORTS,

	/** A claim in a flash sale of 10 items, restocked when sold out. */
	CLAIMS,

	/** An export of a customer's orders, a long job that reports its progress. */
	EXPORTS

}
