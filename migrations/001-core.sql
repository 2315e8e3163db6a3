  CREATE TABLE tenants (
    id uuid PRIMARY KEY,
    slot integer NOT NULL UNIQUE,           -- short id used in Redis key names
    customer_id text UNIQUE,
    name text NOT NULL,
    status text NOT NULL DEFAULT 'active',
    is_default boolean NOT NULL DEFAULT false,
    config_version bigint NOT NULL DEFAULT 1,
    seq integer NOT NULL DEFAULT 0,         -- source of per-tenant short ids (metric slots, …)
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL
  );
  CREATE SEQUENCE tenant_slot_seq START 1;
  INSERT INTO tenants (id, slot, name, is_default, created, updated)
    VALUES ('00000000-0000-0000-0000-000000000000', 0, 'Default', true, now(), now());

  CREATE TABLE api_keys (
    id uuid PRIMARY KEY,
    prefix text NOT NULL UNIQUE,
    secret_hash text NOT NULL,              -- sha256 of the secret part, hex
    kind text NOT NULL CHECK (kind IN ('admin', 'application')),
    tenant_id uuid REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text,
    created timestamptz NOT NULL
  );

  CREATE TABLE metrics (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    slot integer NOT NULL,
    key text NOT NULL,
    name text NOT NULL,
    unit_type text NOT NULL,
    units text NOT NULL,
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    UNIQUE (tenant_id, key),
    UNIQUE (tenant_id, slot)
  );

  CREATE TABLE attributes (
    id uuid PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,  -- creation order for listing
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    key text NOT NULL,
    name text NOT NULL,
    type text NOT NULL CHECK (type IN ('user', 'event')),
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    UNIQUE (tenant_id, type, key)
  );

  CREATE TABLE users (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    id text NOT NULL,
    email text,
    name text,
    tz text,
    subscribe_to_emails boolean NOT NULL DEFAULT true,
    device_tokens jsonb,
    attributes jsonb NOT NULL DEFAULT '{}',
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
  );

  CREATE TABLE events (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    metric_id uuid NOT NULL,
    value numeric NOT NULL,
    total numeric NOT NULL,
    local_date date NOT NULL,
    occurred_at timestamptz NOT NULL,
    idempotency_key text,
    attributes jsonb
  );
  CREATE INDEX events_by_user_metric_date ON events (tenant_id, user_id, metric_id, local_date);
