  CREATE TABLE streak_settings (
    tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
    enabled boolean NOT NULL,
    frequency text NOT NULL,
    metrics jsonb NOT NULL,                -- [{metricId, threshold}]
    mode text NOT NULL,
    week_start text NOT NULL,
    initial_freezes integer NOT NULL,
    freeze_auto_earn_interval integer NOT NULL,
    freeze_auto_earn_amount integer NOT NULL,
    max_freezes integer NOT NULL,
    updated timestamptz NOT NULL
  );

  CREATE TABLE streak_pauses (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    start_date date NOT NULL,
    end_date date NOT NULL,
    created timestamptz NOT NULL
  );
  CREATE INDEX streak_pauses_by_user ON streak_pauses (tenant_id, user_id);

  -- One row per settled or extended period of a user's streak, per frequency.
  CREATE TABLE streak_periods (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    frequency char(1) NOT NULL,
    period integer NOT NULL,
    length integer NOT NULL,
    used_freeze boolean NOT NULL,
    used_pause boolean NOT NULL,
    PRIMARY KEY (tenant_id, user_id, frequency, period)
  );
