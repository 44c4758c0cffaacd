package io.redq.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A small shop that uses every feature of Redq on a real Redis and an embedded H2
 * database: each package is one flow (orders, auctions, a flash sale, images, ...), and
 * {@code load} keeps them all busy so that the dashboard and the meters move.
 *
 * <p>
 * It needs a Redis ({@code spring.data.redis.*}); {@code TestSampleApplication} in the
 * test sources starts one.
 *
 * @author Redq team
 * @since 0.1.0
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
