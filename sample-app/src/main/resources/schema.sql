-- The shop's tables, created in the embedded H2 database at startup (spring.sql.init).

CREATE TABLE product (
	id BIGINT PRIMARY KEY,
	name VARCHAR(200) NOT NULL,
	price DECIMAL(12, 2) NOT NULL,
	stock INT NOT NULL
);

-- what the debounced reindex wrote: one row per product, and how many times it ran
CREATE TABLE search_index (
	product_id BIGINT PRIMARY KEY REFERENCES product (id),
	name VARCHAR(200) NOT NULL,
	runs INT NOT NULL
);

CREATE TABLE customer_order (
	id BIGINT AUTO_INCREMENT PRIMARY KEY,
	email VARCHAR(200) NOT NULL,
	product_id BIGINT NOT NULL REFERENCES product (id),
	quantity INT NOT NULL,
	total DECIMAL(12, 2) NOT NULL,
	-- UNPAID, then PAID or CANCELLED
	status VARCHAR(20) NOT NULL,
	placed_at TIMESTAMP(6) WITH TIME ZONE NOT NULL
);

-- the sales report reads the orders placed since the report before, not every order
CREATE INDEX customer_order_placed_at ON customer_order (placed_at);

-- the simulated mail server's outbox; the job id is the idempotency key: a job that runs
-- twice sends its mail once
CREATE TABLE sent_mail (
	job_id VARCHAR(200) PRIMARY KEY,
	recipient VARCHAR(200) NOT NULL,
	subject VARCHAR(500) NOT NULL,
	sent_at TIMESTAMP(6) WITH TIME ZONE NOT NULL
);

CREATE TABLE auction (
	id BIGINT AUTO_INCREMENT PRIMARY KEY,
	item VARCHAR(200) NOT NULL,
	ends_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	-- OPEN, then CLOSED
	status VARCHAR(20) NOT NULL,
	highest_bid DECIMAL(12, 2),
	highest_bidder VARCHAR(200),
	closed_at TIMESTAMP(6) WITH TIME ZONE
);

CREATE TABLE flash_sale (
	sku VARCHAR(100) PRIMARY KEY,
	stock INT NOT NULL
);

-- one row per claim that was decided: WON or SOLD_OUT
CREATE TABLE flash_sale_claim (
	sku VARCHAR(100) NOT NULL REFERENCES flash_sale (sku),
	buyer VARCHAR(200) NOT NULL,
	outcome VARCHAR(20) NOT NULL,
	PRIMARY KEY (sku, buyer)
);

CREATE TABLE image (
	id BIGINT AUTO_INCREMENT PRIMARY KEY,
	name VARCHAR(200) NOT NULL,
	-- UPLOADED, then DONE or FAILED
	status VARCHAR(20) NOT NULL,
	thumbnail VARCHAR(300),
	error VARCHAR(1000)
);

-- an image's publication, a chain of resize, watermark and publish
CREATE TABLE image_publication (
	image_id BIGINT PRIMARY KEY REFERENCES image (id),
	-- null until the chain is dispatched
	chain_id VARCHAR(200),
	-- PUBLISHING, then PUBLISHED or BROKEN
	status VARCHAR(20) NOT NULL,
	url VARCHAR(300),
	error VARCHAR(1000)
);

-- one row per step of a publication that ran to its end, in the order they ended
CREATE TABLE image_publication_step (
	id BIGINT AUTO_INCREMENT PRIMARY KEY,
	image_id BIGINT NOT NULL REFERENCES image (id),
	step VARCHAR(20) NOT NULL,
	started_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	finished_at TIMESTAMP(6) WITH TIME ZONE NOT NULL
);

CREATE TABLE contact (
	tenant VARCHAR(128) NOT NULL,
	line INT NOT NULL,
	started_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	finished_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	PRIMARY KEY (tenant, line)
);

CREATE TABLE partner_call (
	job_id VARCHAR(200) PRIMARY KEY,
	order_id BIGINT NOT NULL,
	called_at TIMESTAMP(6) WITH TIME ZONE NOT NULL
);

CREATE TABLE sales_report (
	tick TIMESTAMP(6) WITH TIME ZONE PRIMARY KEY,
	orders BIGINT NOT NULL,
	paid BIGINT NOT NULL,
	revenue DECIMAL(14, 2) NOT NULL
);

-- what an export of a customer's orders wrote: a line per order, and the attempt that
-- wrote it (a later attempt goes on after the last line of the one before)
CREATE TABLE order_export_line (
	job_id VARCHAR(200) NOT NULL,
	order_id BIGINT NOT NULL REFERENCES customer_order (id),
	attempt INT NOT NULL,
	line VARCHAR(500) NOT NULL,
	PRIMARY KEY (job_id, order_id)
);
