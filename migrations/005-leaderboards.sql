  CREATE TABLE leaderboards (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    slot integer NOT NULL,
    key text NOT NULL,
    name text NOT NULL,
    description text,
    status text NOT NULL,
    rank_by text NOT NULL,
    metric_id uuid REFERENCES metrics(id) ON DELETE CASCADE,
    points_system_id uuid REFERENCES points_systems(id) ON DELETE CASCADE,
    max_participants integer NOT NULL,
    start_date date NOT NULL,
    end_date date,
    start_time text,
    end_time text,
    breakdown_attributes uuid[] NOT NULL DEFAULT '{}',
    run_unit text,
    run_interval integer,
    finalized_run integer NOT NULL DEFAULT -1,   -- the last run whose final rankings are stored
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    UNIQUE (tenant_id, key)
  );

  -- Every rank change, for the user's history on a board.
  CREATE TABLE leaderboard_events (
    id uuid PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    leaderboard_id uuid NOT NULL,
    run integer NOT NULL,
    user_id text NOT NULL,
    at timestamptz NOT NULL,
    local_date date NOT NULL,
    previous_rank integer,
    rank integer,
    previous_value bigint,
    value bigint
  );
  CREATE INDEX leaderboard_events_by_user ON leaderboard_events (tenant_id, leaderboard_id, user_id, seq DESC);

  -- Final rankings of finished runs.
  CREATE TABLE leaderboard_results (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    leaderboard_id uuid NOT NULL,
    run integer NOT NULL,
    grp text NOT NULL,
    user_id text NOT NULL,
    rank integer NOT NULL,
    value bigint NOT NULL,
    PRIMARY KEY (tenant_id, leaderboard_id, run, grp, user_id)
  );
