-- The catalog the shop starts with; the load generator orders from it too, hence the stock.
INSERT INTO product (id, name, price, stock) VALUES
	(1, 'Mechanical keyboard', 89.00, 1000000),
	(2, 'Noise-cancelling headphones', 199.00, 1000000),
	(3, 'USB-C dock', 129.00, 1000000),
	(4, 'Standing desk', 449.00, 1000000);
