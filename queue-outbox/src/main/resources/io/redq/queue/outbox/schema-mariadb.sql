-- Redq outbox (format 1).
-- One row per queue per transaction (at most 1,000 jobs and timer calls), applied to Redis by the relay and deleted.
CREATE TABLE IF NOT EXISTS redq_outbox (
	id BIGINT AUTO_INCREMENT PRIMARY KEY,
	queue VARCHAR(200) NOT NULL,
	nonce VARCHAR(32) NOT NULL,
	steps LONGTEXT NOT NULL,
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
	steps LONGTEXT NOT NULL,
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
INSERT IGNORE INTO redq_outbox_lock (name) VALUES ('relay');
