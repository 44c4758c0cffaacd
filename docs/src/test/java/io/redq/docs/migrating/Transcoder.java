package io.redq.docs.migrating;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The transcoder of the "Migrating" examples: records the podcasts and feeds it handled.
 *
 * @author Redq team
 */
class Transcoder {

	final List<String> done = new CopyOnWriteArrayList<>();

	void transcode(Podcast podcast) {
		this.done.add("podcast " + podcast.id());
	}

	void refreshFeed(long showId) {
		this.done.add("feed " + showId);
	}

}
