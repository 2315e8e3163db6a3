  -- The event record partitioned by time (store/event-partitions.ts): one
  -- partition per UTC month of occurred_at, made ahead of time by Laurel (at
  -- start and by the scheduler) and dropped whole past EVENT_RETENTION_DAYS.
  -- Same name, columns and order as before, so every read is unchanged. Its
  -- keys lead with the tenant (a distribution column for Citus) and hold the
  -- partition key, as Postgres requires of a partitioned unique index.
  -- The default partition only catches a row no month was made for (a
  -- clock far off); the scheduler moves such rows into their month.
  ALTER TABLE events RENAME TO events_unpartitioned;
  ALTER INDEX events_once RENAME TO events_unpartitioned_once;
  ALTER INDEX events_by_user_metric_date RENAME TO events_unpartitioned_by_user;
  CREATE TABLE events (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    metric_id uuid NOT NULL,
    value numeric NOT NULL,
    total numeric NOT NULL,
    local_date date NOT NULL,
    occurred_at timestamptz NOT NULL,
    idempotency_key text,
    attributes jsonb
  ) PARTITION BY RANGE (occurred_at);
  CREATE UNIQUE INDEX events_once ON events (tenant_id, occurred_at, id) INCLUDE (metric_id, user_id, value);
  CREATE INDEX events_by_user_metric_date ON events (tenant_id, user_id, metric_id, local_date);
  CREATE TABLE events_default PARTITION OF events DEFAULT;
  DO $$
  DECLARE m timestamp;
  BEGIN
    FOR m IN SELECT DISTINCT date_trunc('month', occurred_at AT TIME ZONE 'UTC') FROM events_unpartitioned LOOP
      EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%L) TO (%L)',
        'events_' || to_char(m, 'YYYYMM'), m AT TIME ZONE 'UTC', (m + interval '1 month') AT TIME ZONE 'UTC');
    END LOOP;
  END $$;
  INSERT INTO events SELECT id, tenant_id, user_id, metric_id, value, total, local_date, occurred_at, idempotency_key, attributes
    FROM events_unpartitioned;
  DROP TABLE events_unpartitioned;

  -- A user's daily event sums of the months whose raw events retention
  -- dropped (folded in by the same transaction that drops them): the
  -- metric event summaries read them beside the events still kept.
  CREATE TABLE event_days (
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    metric_id uuid NOT NULL,
    local_date date NOT NULL,
    events integer NOT NULL,
    value numeric NOT NULL,
    PRIMARY KEY (tenant_id, user_id, metric_id, local_date)
  );

  -- Keys lead with the tenant (Citus: co-located with the tenant's other rows).
  ALTER TABLE flushed_operations DROP CONSTRAINT flushed_operations_pkey;
  ALTER TABLE flushed_operations ADD PRIMARY KEY (tenant_id, id);
