-- Redq outbox: one row per queue per transaction (at most 1,000 jobs), sent to Redis by the relay and deleted.
CREATE TABLE IF NOT EXISTS redq_outbox (
	id BIGSERIAL PRIMARY KEY,
	nonce VARCHAR(32) NOT NULL,
	queue VARCHAR(200) NOT NULL,
	job_count INTEGER NOT NULL,
	jobs TEXT NOT NULL,
	created_at BIGINT NOT NULL
);
