  -- Sums of closed UTC days for the experiment analytics and the finer
  -- figures (src/store/rollups.ts, activity-record.ts, experiment.ts),
  -- written in the same transaction as the other daily sums.
  -- Each user's events per local date (the date the service recorded on each
  -- event), per UTC day summed: a local date spans two UTC days, so its
  -- count is the sum of its (at most two) rows. Erased with the user.
  CREATE TABLE rollup_user_days (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    local_date date NOT NULL,
    day date NOT NULL,
    events integer NOT NULL,
    PRIMARY KEY (tenant_id, user_id, local_date, day)
  );
  -- Per user, what the experiment figures need of those rows (see
  -- store/experiment.ts): refreshed for the users a closed span touched, so
  -- a request reads one row per user. Erased with the user.
  CREATE TABLE rollup_users (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    first date NOT NULL,          -- day 0: the first active local date
    d1 boolean NOT NULL,          -- active on day 1, 7, 30
    d7 boolean NOT NULL,
    d30 boolean NOT NULL,
    days integer NOT NULL,        -- bit n: active on day n (0 to 29)
    events integer NOT NULL,      -- events on days 0 to 29
    weeks bigint NOT NULL,        -- bit k: active in week k from the Monday of day 0 (0 to 62)
    PRIMARY KEY (tenant_id, user_id)
  );
  CREATE INDEX rollup_users_by_first ON rollup_users (tenant_id, first);
  -- Points of each system per trigger that paid, per UTC day.
  CREATE TABLE rollup_trigger_points (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    day date NOT NULL,
    system_id uuid NOT NULL,
    trigger_id uuid NOT NULL,
    issued numeric NOT NULL,
    consumed numeric NOT NULL,
    PRIMARY KEY (tenant_id, day, system_id, trigger_id)
  );
  -- The daily sums are derived: emptied, every closed day is summed again
  -- (by the scheduler, or the first request that needs it) with the new
  -- tables and the distinct users per metric and day.
  TRUNCATE rollup_days, rollup_events, rollup_points;
  ALTER TABLE rollup_events ADD COLUMN active_users integer NOT NULL;
