package io.redq.benchmarks;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.redq.queue.core.JobDispatcher;
import io.redq.queue.redis.RedisJobDispatcher;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code resend-memory}: the Redis memory of the re-send protection at a sustained rate
 * of single dispatches: N {@code dispatch} calls from {@code --threads} threads, while
 * the queue's re-send keys ({@code sent:*}) are counted and their {@code MEMORY USAGE}
 * summed every 200 ms. Reports the most keys and bytes seen, beside what a key per call
 * kept for the window would hold at the same rate (about 134 bytes each). No listener
 * runs.
 *
 * @author Redq team
 * @since 0.1.0
 */
class ResendMemoryScenario implements Scenario {

	/** The bytes Redis held per dispatch when each call had a key of its own. */
	private static final int BYTES_PER_CALL_KEY = 134;

	@Override
	public void run(Harness harness, Result result) throws Exception {
		int jobs = harness.options().jobs(300_000);
		RedisAdmin redis = harness.redis();
		String pattern = Harness.queueKeys().sent("*", 0).replace(":0", "");
		try (ConfigurableApplicationContext context = harness.startWithoutListeners()) {
			JobDispatcher dispatcher = context.getBean(JobDispatcher.class);
			harness.clearQueue();
			redis.deleteKeys(pattern);
			AtomicBoolean dispatching = new AtomicBoolean(true);
			AtomicLong maxKeys = new AtomicLong();
			AtomicLong maxBytes = new AtomicLong();
			Thread sampler = new Thread(() -> {
				while (dispatching.get()) {
					long bytes = 0;
					int keys = 0;
					for (String key : redis.keys(pattern)) {
						bytes += redis.memoryUsage(key);
						keys++;
					}
					maxKeys.accumulateAndGet(keys, Math::max);
					maxBytes.accumulateAndGet(bytes, Math::max);
					try {
						Thread.sleep(200);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						return;
					}
				}
			}, "resend-memory-sampler");
			sampler.start();
			long start = System.nanoTime();
			harness.dispatchSingles(dispatcher, jobs);
			double seconds = (System.nanoTime() - start) / 1e9;
			dispatching.set(false);
			sampler.join();
			double rate = jobs / seconds;
			result.put("dispatchesPerSecond", Math.round(rate));
			result.put("resendKeysMax", maxKeys.get());
			result.put("resendBytesMax", maxBytes.get());
			result.put("keyPerCallBytes",
					Math.round(rate * RedisJobDispatcher.DEFAULT_RESEND_WINDOW.toSeconds() * BYTES_PER_CALL_KEY));
			harness.clearQueue();
			redis.deleteKeys(pattern);
		}
	}

}
