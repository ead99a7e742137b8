-- name: customers, holds and sales

-- Customers (src/customers/, docs/api.md "Customers"): personal data. A withdrawn customer
-- (deleted_at) is no longer read, listed or sold to, and keeps its data until it is erased; an
-- erasure (erased_at) clears every member but, when the customer bought an animal, the name and
-- the address, which the sale records keep until retained_until (SALE_RECORD_RETENTION_DAYS) and
-- the retention job clears then. search_text is the folded text `q` finds (customer.search.ts).
CREATE TABLE customers (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name TEXT,
  email TEXT,
  phone TEXT,
  address_line1 TEXT,
  address_line2 TEXT,
  city TEXT,
  postal_code TEXT,
  region TEXT,
  country TEXT,
  notes TEXT,
  search_text TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  deleted_at TIMESTAMPTZ,
  erased_at TIMESTAMPTZ,
  retained_until TIMESTAMPTZ,
  CHECK (deleted_at IS NOT NULL OR (name IS NOT NULL AND address_line1 IS NOT NULL AND city IS NOT NULL AND postal_code IS NOT NULL AND country IS NOT NULL)),
  CHECK (erased_at IS NULL OR deleted_at IS NOT NULL),
  CHECK (retained_until IS NULL OR erased_at IS NOT NULL)
);
CREATE INDEX customers_retained ON customers (retained_until) WHERE retained_until IS NOT NULL;
-- An order names its customer and how the animal left the store (docs/api.md "Orders"); orders
-- placed before this migration name neither.
ALTER TABLE orders ADD COLUMN customer_id BIGINT REFERENCES customers (id);
ALTER TABLE orders ADD COLUMN method TEXT CHECK (method IN ('sale', 'adoption', 'transfer'));
CREATE INDEX orders_customer ON orders (customer_id, id) WHERE customer_id IS NOT NULL;
-- The deposit a hold carried into the order it became (docs/api.md "Holds").
ALTER TABLE orders ADD COLUMN deposit_amount BIGINT;
ALTER TABLE orders ADD COLUMN deposit_currency TEXT;
-- Holds (src/holds/, docs/api.md "Holds"): an animal kept for a customer until `until`, with an
-- optional deposit. At most one live hold per animal (holds_one_live); the expiry job finds the
-- live holds due in holds_live_until. A hold ends once: cancelled, converted (order_id: the order
-- it placed) or expired.
CREATE TABLE holds (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  pet_id BIGINT NOT NULL REFERENCES pets (id),
  customer_id BIGINT NOT NULL REFERENCES customers (id),
  state TEXT NOT NULL CHECK (state IN ('live', 'cancelled', 'converted', 'expired')),
  method TEXT NOT NULL CHECK (method IN ('sale', 'adoption', 'transfer')),
  until TIMESTAMPTZ NOT NULL,
  deposit_amount BIGINT,
  deposit_currency TEXT,
  deposit_refunded BOOLEAN,
  order_id BIGINT REFERENCES orders (id),
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  CHECK ((deposit_amount IS NULL) = (deposit_currency IS NULL)),
  CHECK ((state = 'converted') = (order_id IS NOT NULL))
);
CREATE UNIQUE INDEX holds_one_live ON holds (pet_id) WHERE state = 'live';
CREATE INDEX holds_live_until ON holds (until, id) WHERE state = 'live';
CREATE INDEX holds_customer ON holds (customer_id, id);
-- Scopes customers:read and customers:write (docs/api.md, "Authentication"): an owner key gets each
-- as it holds orders:read and orders:write. A new key holds them only when they are named.
UPDATE api_keys SET scopes = scopes || ' customers:read'
  WHERE owner AND ' ' || scopes || ' ' LIKE '% orders:read %' AND ' ' || scopes || ' ' NOT LIKE '% customers:read %';
UPDATE api_keys SET scopes = scopes || ' customers:write'
  WHERE owner AND ' ' || scopes || ' ' LIKE '% orders:write %' AND ' ' || scopes || ' ' NOT LIKE '% customers:write %';
