package io.redq.sample.catalog;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the search index.
 *
 * @param reindexWindow How long edits of one product are collected before it is reindexed
 * once.
 * @author Redq team
 * @since 0.1.0
 */
@ConfigurationProperties("sample.search")
public record SearchProperties(@DefaultValue("2s") Duration reindexWindow) {

	public SearchProperties {
		if (reindexWindow.isNegative() || reindexWindow.isZero()) {
			throw new IllegalArgumentException(
					"sample.search.reindex-window must be positive, but was " + reindexWindow);
		}
	}

}
