package io.redq.queue.redis;

import java.util.List;

/**
 * Calls whose reply is lost, for the workflow testers: the script runs, and its caller
 * does none of what the reply calls for, then Lettuce re-sends the call after a
 * reconnect, and its caller acts on the re-sent call's reply alone.
 *
 * @author Redq team
 */
public final class LostReplies {

	private LostReplies() {
	}

	/**
	 * Run an operator's chain cancel whose reply is lost: the chain script's cancel
	 * alone, without the forestall, the cancel in the step's queue and the delivery that
	 * {@link ChainOperations#cancel} makes after it.
	 * @param chains the chains, with the chain script under test
	 * @param chainId the chain id
	 * @return the lost reply
	 */
	public static List<?> cancelChain(ChainOperations chains, String chainId) {
		return chains.run(chainId, List.of("cancel"));
	}

}
