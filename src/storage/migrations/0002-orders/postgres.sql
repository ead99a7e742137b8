-- name: store orders

CREATE TABLE orders (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  pet_id BIGINT NOT NULL REFERENCES pets (id),
  status TEXT NOT NULL CHECK (status IN ('placed', 'approved', 'delivered', 'cancelled')),
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX orders_status_id ON orders (status, id);
CREATE INDEX orders_pet_id_id ON orders (pet_id, id);
