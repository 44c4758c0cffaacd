package io.redq.benchmarks;

/**
 * One benchmark: starts the application it needs, measures, and puts its figures in the
 * result.
 *
 * @author Redq team
 * @since 0.1.0
 */
interface Scenario {

	void run(Harness harness, Result result) throws Exception;

}
