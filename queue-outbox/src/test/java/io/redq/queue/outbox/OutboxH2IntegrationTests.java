package io.redq.queue.outbox;

/**
 * Tests of the transactional outbox on an embedded H2 database, whose outbox table the
 * auto-configuration creates.
 *
 * @author Redq team
 */
class OutboxH2IntegrationTests extends AbstractOutboxIntegrationTests {

	@Override
	protected String[] databaseProperties() {
		return new String[] { "spring.datasource.generate-unique-name=true" };
	}

}
