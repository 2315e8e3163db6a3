  -- Webhook endpoints. The secret is kept readable: it signs every delivery.
  CREATE TABLE webhooks (
    id uuid PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    url text NOT NULL,
    description text,
    event_types text[] NOT NULL,
    status text NOT NULL CHECK (status IN ('active', 'inactive')),
    secret text NOT NULL,
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL
  );
  CREATE INDEX webhooks_by_tenant ON webhooks (tenant_id);

  -- The outbox: one row per event and endpoint, written in the same
  -- transaction as the change it reports, sent by the dispatcher.
  CREATE TABLE webhook_deliveries (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id uuid NOT NULL,                 -- derived from the change: a re-flush finds the same id
    type text NOT NULL,
    payload text NOT NULL,                  -- the exact body sent (and signed)
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,   -- also the lease of an attempt in flight
    last_attempt_at timestamptz,
    last_status integer,
    last_error text,
    created timestamptz NOT NULL,
    delivered_at timestamptz,
    UNIQUE (webhook_id, event_id)
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (webhook_id, next_attempt_at) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries (webhook_id, status, created DESC);
  CREATE INDEX webhook_deliveries_delivered ON webhook_deliveries (delivered_at) WHERE status = 'delivered';

  -- What the scheduler has announced: the last leaderboard run started, and
  -- the boost dates whose start and end were reported.
  ALTER TABLE leaderboards ADD COLUMN started_run integer NOT NULL DEFAULT -1;
  ALTER TABLE points_boosts ADD COLUMN announced_start date, ADD COLUMN announced_end date;
  UPDATE points_boosts SET announced_start = start_date WHERE start_date <= current_date;
  UPDATE points_boosts SET announced_end = end_date WHERE end_date < current_date;
