package io.redq.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A runnable app that shows Redq's programming model: {@link SampleJobs} declares the
 * jobs and {@link SampleRunner} dispatches a few at startup.
 *
 * <p>
 * It needs a Redis ({@code spring.data.redis.*}); {@code TestSampleApplication} in the
 * test sources starts one.
 *
 * @author Redq team
 * @since 0.1.0
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
