-- A retail chain: stores, customers, products and orders (written for SpotIt's fuzzer).
CREATE TABLE stores (
  store_id INTEGER PRIMARY KEY,
  "Store Name" TEXT NOT NULL,
  city TEXT,
  region TEXT COLLATE NOCASE,
  opened DATE,
  sq_ft INTEGER
);
CREATE TABLE customers (
  customer_id INTEGER PRIMARY KEY,
  "First Name" TEXT,
  "Last Name" TEXT NOT NULL,
  email TEXT,
  segment TEXT,
  joined DATE,
  "homeStore" INTEGER REFERENCES stores(store_id)
);
CREATE TABLE products (
  product_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  category TEXT,
  "Unit Price" REAL,
  cost REAL,
  discontinued INTEGER
);
CREATE TABLE orders (
  order_id INTEGER PRIMARY KEY,
  customer_id INTEGER REFERENCES customers(customer_id),
  store_id INTEGER REFERENCES stores(store_id),
  order_date DATETIME,
  channel TEXT,
  status TEXT
);
CREATE TABLE order_items (
  item_id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES orders(order_id),
  product_id INTEGER REFERENCES products(product_id),
  quantity INTEGER,
  discount REAL
);
