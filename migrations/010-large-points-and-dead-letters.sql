  -- Points as large as the API allows (a trigger's points and event values up
  -- to 1e12; a total accumulates beyond). Awards hold whatever number the
  -- scripts computed (numeric: any JSON number, exactly); configuration holds
  -- the integers the Admin API accepts (bigint).
  ALTER TABLE points_awards ALTER COLUMN awarded TYPE numeric, ALTER COLUMN total TYPE numeric;
  ALTER TABLE points_systems ALTER COLUMN max_points TYPE bigint;
  ALTER TABLE points_triggers ALTER COLUMN points TYPE bigint, ALTER COLUMN metric_threshold TYPE bigint;
  ALTER TABLE points_levels ALTER COLUMN points TYPE bigint;

  -- Change records Postgres refused for good (a data error, not an outage):
  -- kept here, out of the stream, so the rest of their batch is written. The
  -- record's fields as the scripts wrote them; a value Postgres cannot hold
  -- as text (a NUL character) as {"base64": …} (see store/dead-letters.ts).
  CREATE TABLE dead_letters (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    stream_id text NOT NULL,
    record jsonb NOT NULL,
    error text NOT NULL,
    sqlstate text,
    first_failed_at timestamptz NOT NULL,
    last_failed_at timestamptz NOT NULL,
    replays integer NOT NULL DEFAULT 0,
    UNIQUE (tenant_id, stream_id)
  );
  CREATE INDEX dead_letters_newest ON dead_letters (tenant_id, first_failed_at DESC, id);
