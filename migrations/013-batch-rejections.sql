  -- Items of an accepted batch of events (POST /admin/v1/metrics/events) that
  -- could not be applied when their turn came (a metric deleted meanwhile,
  -- points blocked, ...): kept for inspection rather than lost.
  CREATE TABLE batch_rejections (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    batch_id text NOT NULL,
    item_index integer NOT NULL,
    user_id text NOT NULL,
    item jsonb NOT NULL,
    status integer NOT NULL,
    error text NOT NULL,
    at timestamptz NOT NULL
  );
  CREATE INDEX batch_rejections_by_time ON batch_rejections (tenant_id, at DESC);
