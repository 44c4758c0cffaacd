package io.redq.sample.mail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import io.redq.queue.core.JobQueueOperations;
import io.redq.queue.testkit.JobTester;
import io.redq.sample.SampleShopTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mail priorities: password resets go out before a backlog of newsletters.
 *
 * @author Redq team
 */
@SampleShopTest
class MailPriorityIntegrationTests {

	@Autowired
	private MailJobs mail;

	@Autowired
	private JobQueueOperations operations;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void passwordResetsGoBeforeNewsletters(@Autowired ApplicationContext context) {
		List<String> newsletters;
		List<String> resets = new ArrayList<>();
		// a backlog: everything waits until the queue is resumed
		this.operations.pause("mail");
		try {
			newsletters = this.mail.sendNewsletter("Spring deals",
					IntStream.range(0, 20).mapToObj((i) -> "reader-" + i + "@mail.example").toList());
			for (int i = 0; i < 3; i++) {
				resets.add(this.mail.requestPasswordReset("user-" + i + "@mail.example"));
			}
		}
		finally {
			this.operations.resume("mail");
		}
		JobTester.of(context).awaitDrained("mail", Duration.ofSeconds(30));
		List<String> sent = this.jdbc.sql("SELECT job_id FROM sent_mail WHERE job_id IN (:ids) ORDER BY sent_at")
			.param("ids", concat(resets, newsletters))
			.query(String.class)
			.list();
		// the tests' one mail worker sends in the order the jobs were reserved
		assertThat(sent).hasSize(23);
		assertThat(sent.subList(0, 3)).containsExactlyInAnyOrderElementsOf(resets);
	}

	private static List<String> concat(List<String> first, List<String> second) {
		List<String> all = new ArrayList<>(first);
		all.addAll(second);
		return all;
	}

}
