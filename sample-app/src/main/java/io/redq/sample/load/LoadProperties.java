package io.redq.sample.load;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the load generator.
 *
 * @param rate Steps per second, from 0 (off) to 500; each step sets off one to three
 * jobs.
 * @param mix Weight of each kind of step, from 0 to 100; a kind left out weighs 1.
 * @author Redq team
 * @since 0.1.0
 */
@ConfigurationProperties("sample.load")
public record LoadProperties(@DefaultValue("0") int rate, @Nullable Map<LoadKind, Integer> mix) {

	/** The highest rate: the generator runs its steps on one thread. */
	public static final int MAX_RATE = 500;

	public LoadProperties {
		checkRate(rate);
		mix = weights(mix);
	}

	static int checkRate(int rate) {
		if (rate < 0 || rate > MAX_RATE) {
			throw new IllegalArgumentException(
					"The load rate must be between 0 (off) and " + MAX_RATE + " steps per second, but was " + rate);
		}
		return rate;
	}

	private static Map<LoadKind, Integer> weights(@Nullable Map<LoadKind, Integer> mix) {
		Map<LoadKind, Integer> weights = new EnumMap<>(LoadKind.class);
		for (LoadKind kind : LoadKind.values()) {
			int weight = (mix != null) ? mix.getOrDefault(kind, 1) : 1;
			if (weight < 0 || weight > 100) {
				throw new IllegalArgumentException(
						"sample.load.mix." + kind.name().toLowerCase(Locale.ROOT).replace('_', '-')
								+ " must be between 0 and 100, but was " + weight);
			}
			weights.put(kind, weight);
		}
		if (weights.values().stream().allMatch((weight) -> weight == 0)) {
			throw new IllegalArgumentException("sample.load.mix gives every kind the weight 0: give one a weight");
		}
		return weights;
	}

}
