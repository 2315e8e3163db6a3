  -- Wrapped's percentiles: per tenant, period (week, month, year of local
  -- dates) and metric or points system, the 101 percentile cut points of the
  -- users' change in it (see store/wrapped-percentiles.ts), refreshed by the
  -- scheduler so a Wrapped read never ranks every user.
  CREATE TABLE wrapped_percentiles (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    unit char(1) NOT NULL,
    period_start date NOT NULL,
    kind char(1) NOT NULL,
    item_id uuid NOT NULL,
    cuts float8[] NOT NULL,
    users integer NOT NULL,
    refreshed_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, unit, period_start, kind, item_id)
  );
