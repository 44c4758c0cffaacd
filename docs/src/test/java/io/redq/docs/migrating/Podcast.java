package io.redq.docs.migrating;

/**
 * A podcast of the "Migrating" examples.
 *
 * @param id the podcast's id
 * @param showId the id of the show it belongs to
 * @author Redq team
 */
record Podcast(long id, long showId) {
}
