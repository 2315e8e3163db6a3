  CREATE TABLE points_systems (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    slot integer NOT NULL,
    key text NOT NULL,
    name text NOT NULL,
    description text NOT NULL DEFAULT '',
    badge_url text,
    max_points integer,
    status text NOT NULL DEFAULT 'active',
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    UNIQUE (tenant_id, key)
  );

  CREATE TABLE points_triggers (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    system_id uuid NOT NULL REFERENCES points_systems(id) ON DELETE CASCADE,
    slot integer NOT NULL,
    type text NOT NULL,
    points integer NOT NULL,
    status text NOT NULL,
    metric_id uuid REFERENCES metrics(id) ON DELETE CASCADE,
    metric_threshold integer,
    achievement_id uuid,
    streak_length integer,
    time_unit text,
    time_interval integer,
    user_attributes jsonb NOT NULL DEFAULT '[]',   -- [{attributeId, attributeValue}]
    event_attributes jsonb NOT NULL DEFAULT '[]',
    block_if_out_of_points boolean NOT NULL DEFAULT false,
    activated timestamptz,                          -- when it last became active (time triggers count from here)
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL
  );

  CREATE TABLE points_levels (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    system_id uuid NOT NULL REFERENCES points_systems(id) ON DELETE CASCADE,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    key text NOT NULL,
    name text NOT NULL,
    description text NOT NULL DEFAULT '',
    badge_url text,
    points integer NOT NULL,
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    UNIQUE (system_id, key)
  );

  CREATE TABLE points_boosts (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    system_id uuid NOT NULL REFERENCES points_systems(id) ON DELETE CASCADE,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    name text NOT NULL,
    user_id text,
    user_attributes jsonb NOT NULL DEFAULT '[]',
    start_date date NOT NULL,
    end_date date,
    multiplier numeric NOT NULL,
    rounding text NOT NULL,
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL
  );

  CREATE TABLE points_awards (
    id uuid PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,      -- order of awards within one event
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    system_id uuid NOT NULL,
    trigger_id uuid NOT NULL,
    event_id uuid,
    awarded integer NOT NULL,
    total integer NOT NULL,
    at timestamptz NOT NULL,
    local_date date NOT NULL,
    boosts jsonb NOT NULL DEFAULT '[]'
  );
  CREATE INDEX points_awards_by_user ON points_awards (tenant_id, user_id, system_id, seq DESC);
  CREATE INDEX points_awards_by_date ON points_awards (tenant_id, user_id, system_id, local_date);
