-- name: store orders

CREATE TABLE orders (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  pet_id INTEGER NOT NULL REFERENCES pets (id),
  status TEXT NOT NULL CHECK (status IN ('placed', 'approved', 'delivered', 'cancelled')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX orders_status_id ON orders (status, id);
CREATE INDEX orders_pet_id_id ON orders (pet_id, id);
