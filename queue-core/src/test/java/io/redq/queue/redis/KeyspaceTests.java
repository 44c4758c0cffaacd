package io.redq.queue.redis;

import io.redq.queue.core.RateLimit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link Keyspace}: every key family's exact string for a sample prefix and
 * queue, byte for byte as older instances, which share the keys, spell them.
 *
 * @author Redq team
 */
class KeyspaceTests {

	private final Keyspace keyspace = new Keyspace("shop");

	@Test
	void queueKeysAreUnderTheQueueHashTagInTheOrderTheScriptsTakeThem() {
		QueueKeys keys = this.keyspace.queue("mail");
		assertThat(keys.all()).containsExactly("shop:{mail}:ready", "shop:{mail}:delayed", "shop:{mail}:reserved",
				"shop:{mail}:dead", "shop:{mail}:jobs", "shop:{mail}:attempts", "shop:{mail}:leases",
				"shop:{mail}:errors", "shop:{mail}:wake", "shop:{mail}:sequence", "shop:{mail}:successors",
				"shop:{mail}:paused", "shop:{mail}:completed", "shop:{mail}:model", "shop:{mail}:started",
				"shop:{mail}:stalls", "shop:{mail}:stale", "shop:{mail}:runs", "shop:{mail}:stats",
				"shop:{mail}:traces", "shop:{mail}:queued", "shop:{mail}:levels", "shop:{mail}:fair",
				"shop:{mail}:lines", "shop:{mail}:parked", "shop:{mail}:holding", "shop:{mail}:held",
				"shop:{mail}:batch-links", "shop:{mail}:handover", "shop:{mail}:waiting");
		assertThat(keys.gates(new Gates("order-17", "send", 2, 10, RateLimit.parse("5/1s")))).containsExactly(
				"shop:{mail}:group-running:", "shop:{mail}:exclusive:order-17", "shop:{mail}:running:send",
				"shop:{mail}:running", "shop:{mail}:rate:send", "shop:{mail}:places:send");
		assertThat(keys.result("j1")).isEqualTo("shop:{mail}:result:j1");
		assertThat(keys.recurring("daily")).isEqualTo("shop:{mail}:recurring:daily");
		assertThat(keys.sent("p1", 3)).isEqualTo("shop:{mail}:sent:p1:3");
		assertThat(keys.pattern()).isEqualTo("shop:{mail}:*");
		assertThat(this.keyspace.hashTag("mail")).isEqualTo("{mail}");
	}

	@Test
	void batchKeysAreUnderTheBatchHashTag() {
		assertThat(this.keyspace.batch("b1").all()).containsExactly("shop:batch:{b1}:meta", "shop:batch:{b1}:pending",
				"shop:batch:{b1}:dead", "shop:batch:{b1}:succeeded");
	}

	@Test
	void aChainKeyIsUnderTheChainHashTag() {
		assertThat(this.keyspace.chain("c1")).isEqualTo("shop:chain:{c1}:meta");
		assertThat(this.keyspace.batchIndex()).isEqualTo("shop:batch:index");
		assertThat(this.keyspace.chainIndex()).isEqualTo("shop:chain:index");
	}

	@Test
	void instanceRegistryKeysShareOneHashTag() {
		assertThat(this.keyspace.instanceIndex()).isEqualTo("shop:registry:{instances}:index");
		assertThat(this.keyspace.instance("i1")).isEqualTo("shop:registry:{instances}:instance:i1");
	}

	@Test
	void lockKeysAreTheOwnerThenTheFence() {
		assertThat(this.keyspace.lock("report")).containsExactly("shop:lock:{report}", "shop:lock:{report}:fence");
	}

	@Test
	void dashboardActionsAreOneList() {
		assertThat(this.keyspace.dashboardActions()).isEqualTo("shop:dashboard:actions");
	}

	@Test
	void patternsEscapeThePrefix() {
		Keyspace globby = new Keyspace("a*b");
		assertThat(globby.pattern()).isEqualTo("a\\*b:*");
		assertThat(globby.queueModelPattern()).isEqualTo("a\\*b:*{*}:model");
		assertThat(globby.queue("mail").pattern()).isEqualTo("a\\*b:{mail}:*");
	}

	@Test
	void queueIsParsedBackFromItsModelKey() {
		assertThat(this.keyspace.queueOfModelKey(this.keyspace.queue("mail").model())).isEqualTo("mail");
		assertThat(this.keyspace.queueOfModelKey("shop:{a:b}:model")).isEqualTo("a:b");
		assertThat(this.keyspace.queueOfModelKey("other:{mail}:model")).isNull();
		assertThat(this.keyspace.queueOfModelKey("shop:{}:model")).isNull();
		assertThat(this.keyspace.queueOfModelKey("shop:{mail}:ready")).isNull();
	}

	@Test
	void queueIsParsedBackFromItsShardsModelKey() {
		assertThat(this.keyspace.queueOfModelKey(this.keyspace.shard("mail", "mail#2").model())).isEqualTo("mail");
		assertThat(this.keyspace.queueOfModelKey("shop:shard:{a#1#12}:model")).isEqualTo("a#1");
		assertThat(this.keyspace.queueOfModelKey("shop:shard:{mail}:model")).isNull();
		assertThat(this.keyspace.queueOfModelKey("shop:shard:{mail#}:model")).isNull();
		assertThat(this.keyspace.queueOfModelKey("shop:shard:{#1}:model")).isNull();
		assertThat(this.keyspace.queueOfModelKey("shop:shard:{mail#x}:model")).isNull();
		assertThat(this.keyspace.queueOfModelKey("shop:lock:{mail#1}:model")).isNull();
	}

	@Test
	void invalidNamesAreRefusedSayingWhy() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Keyspace("a{b")).withMessageContaining("a{b");
		assertThatIllegalArgumentException().isThrownBy(() -> this.keyspace.queue("a{b")).withMessageContaining("a{b");
		assertThatIllegalArgumentException().isThrownBy(() -> this.keyspace.lock("")).withMessageContaining("lock");
	}

}
