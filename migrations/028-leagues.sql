-- Leagues (docs/leagues.md): cohort boards with tiers. tiers and
-- cohort_size apply to the current run; next_* (set by a change) from
-- run next_from_run on. finalized_run: the last run whose results are durable.
CREATE TABLE leagues (
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
  cadence text NOT NULL,
  week_start text NOT NULL,
  time_zone text NOT NULL,
  cohort_size integer NOT NULL,
  tiers jsonb NOT NULL,
  next_cohort_size integer,
  next_tiers jsonb,
  next_from_run integer,
  finalized_run integer NOT NULL,
  created timestamptz NOT NULL,
  updated timestamptz NOT NULL,
  UNIQUE (tenant_id, key)
);

-- Live cohort membership and packed score of each participant of a run
-- not yet finalized (written by the flusher, versioned by stream id; restored from).
CREATE TABLE league_entries (
  tenant_id uuid NOT NULL,
  league_id uuid NOT NULL,
  run integer NOT NULL,
  user_id text NOT NULL,
  tier integer NOT NULL,
  cohort integer NOT NULL,
  score double precision,
  ver numeric NOT NULL,
  PRIMARY KEY (tenant_id, league_id, run, user_id)
);

-- One row per finalized run: written with the results in one transaction
-- (exactly once); state says which later step (Redis tiers applied, Redis keys freed) is done.
CREATE TABLE league_runs (
  tenant_id uuid NOT NULL,
  league_id uuid NOT NULL,
  run integer NOT NULL,
  start_date date NOT NULL,
  end_date date NOT NULL,
  cohorts integer NOT NULL,
  participants integer NOT NULL,
  promoted integer NOT NULL,
  relegated integer NOT NULL,
  state text NOT NULL,
  finalized_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, league_id, run)
);

-- Each participant's result of a finalized run (their league history).
CREATE TABLE league_results (
  tenant_id uuid NOT NULL,
  league_id uuid NOT NULL,
  run integer NOT NULL,
  user_id text NOT NULL,
  cohort text NOT NULL,
  tier integer NOT NULL,
  tier_key text NOT NULL,
  rank integer NOT NULL,
  value bigint NOT NULL,
  outcome text NOT NULL,
  new_tier integer NOT NULL,
  new_tier_key text NOT NULL,
  PRIMARY KEY (tenant_id, league_id, user_id, run)
);
CREATE INDEX league_results_by_cohort ON league_results (tenant_id, league_id, run, cohort, rank);

-- Each user's tier after the last finalized run they played (absent: the lowest).
CREATE TABLE league_tiers (
  tenant_id uuid NOT NULL,
  league_id uuid NOT NULL,
  user_id text NOT NULL,
  tier integer NOT NULL,
  PRIMARY KEY (tenant_id, league_id, user_id)
);
