-- Redq outbox (format 1). The advisory lock makes instances that start together on a new database create the tables
-- one after another: concurrent CREATE ... IF NOT EXISTS can fail in PostgreSQL's catalog. Redq takes the lock on the
-- connection that runs this script and gives it back at its end.
SELECT pg_advisory_lock(7240593);
-- One row per queue per transaction (at most 1,000 jobs and timer calls), applied to Redis by the relay and deleted.
CREATE TABLE IF NOT EXISTS redq_outbox (
	id BIGSERIAL PRIMARY KEY,
	queue VARCHAR(200) NOT NULL,
	nonce VARCHAR(32) NOT NULL,
	steps TEXT NOT NULL,
	job_count INTEGER NOT NULL,
	created_at BIGINT NOT NULL,
	attempts INTEGER DEFAULT 0 NOT NULL,
	next_attempt_at BIGINT DEFAULT 0 NOT NULL,
	sent_at BIGINT,
	last_error VARCHAR(1000)
);
-- the rows that hold their queue back (claimed or waiting for a retry), found without reading the others
CREATE INDEX IF NOT EXISTS redq_outbox_waiting ON redq_outbox (queue, next_attempt_at);
-- Rows that the relay moved aside, with the reason, for an operator to retry or delete.
CREATE TABLE IF NOT EXISTS redq_outbox_parked (
	id BIGINT PRIMARY KEY,
	queue VARCHAR(200) NOT NULL,
	nonce VARCHAR(32) NOT NULL,
	steps TEXT NOT NULL,
	job_count INTEGER NOT NULL,
	created_at BIGINT NOT NULL,
	attempts INTEGER NOT NULL,
	sent_at BIGINT,
	parked_at BIGINT NOT NULL,
	reason VARCHAR(1000) NOT NULL
);
-- The row that a relay locks while it claims rows.
CREATE TABLE IF NOT EXISTS redq_outbox_lock (
	name VARCHAR(20) PRIMARY KEY
);
INSERT INTO redq_outbox_lock (name) SELECT 'relay' WHERE NOT EXISTS (SELECT 1 FROM redq_outbox_lock);
SELECT pg_advisory_unlock(7240593);
