import type { Pool } from 'pg';
import { tx } from './db';

/** The id of the tenant used when a request names none. */
export const DEFAULT_TENANT_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Ordered schema changes. Each runs once, all inside one transaction under an
 * advisory lock, so concurrent starts of several processes are safe.
 */
export const MIGRATIONS: string[] = [
  `
  CREATE TABLE tenants (
    id uuid PRIMARY KEY,
    slot integer NOT NULL UNIQUE,           -- short id used in Redis key names
    customer_id text UNIQUE,
    name text NOT NULL,
    status text NOT NULL DEFAULT 'active',
    is_default boolean NOT NULL DEFAULT false,
    config_version bigint NOT NULL DEFAULT 1,
    seq integer NOT NULL DEFAULT 0,         -- source of per-tenant short ids (metric slots, …)
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL
  );
  CREATE SEQUENCE tenant_slot_seq START 1;
  INSERT INTO tenants (id, slot, name, is_default, created, updated)
    VALUES ('${DEFAULT_TENANT_ID}', 0, 'Default', true, now(), now());

  CREATE TABLE api_keys (
    id uuid PRIMARY KEY,
    prefix text NOT NULL UNIQUE,
    secret_hash text NOT NULL,              -- sha256 of the secret part, hex
    kind text NOT NULL CHECK (kind IN ('admin', 'application')),
    tenant_id uuid REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text,
    created timestamptz NOT NULL
  );

  CREATE TABLE metrics (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    slot integer NOT NULL,
    key text NOT NULL,
    name text NOT NULL,
    unit_type text NOT NULL,
    units text NOT NULL,
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    UNIQUE (tenant_id, key),
    UNIQUE (tenant_id, slot)
  );

  CREATE TABLE attributes (
    id uuid PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,  -- creation order for listing
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    key text NOT NULL,
    name text NOT NULL,
    type text NOT NULL CHECK (type IN ('user', 'event')),
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    UNIQUE (tenant_id, type, key)
  );

  CREATE TABLE users (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    id text NOT NULL,
    email text,
    name text,
    tz text,
    subscribe_to_emails boolean NOT NULL DEFAULT true,
    device_tokens jsonb,
    attributes jsonb NOT NULL DEFAULT '{}',
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
  );

  CREATE TABLE events (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    metric_id uuid NOT NULL,
    value numeric NOT NULL,
    total numeric NOT NULL,
    local_date date NOT NULL,
    occurred_at timestamptz NOT NULL,
    idempotency_key text,
    attributes jsonb
  );
  CREATE INDEX events_by_user_metric_date ON events (tenant_id, user_id, metric_id, local_date);
  `,
  `
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
  `,
  `
  CREATE TABLE achievements (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    slot integer NOT NULL,
    key text NOT NULL,
    name text NOT NULL,
    description text,
    badge_url text,
    status text NOT NULL,
    trigger text NOT NULL,
    metric_id uuid REFERENCES metrics(id) ON DELETE CASCADE,
    metric_value numeric,
    streak_length integer,
    prerequisite_ids uuid[] NOT NULL DEFAULT '{}',
    user_attributes jsonb NOT NULL DEFAULT '[]',
    event_attributes jsonb NOT NULL DEFAULT '[]',
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    UNIQUE (tenant_id, key)
  );

  CREATE TABLE achievement_completions (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    achievement_id uuid NOT NULL,
    user_id text NOT NULL,
    achieved_at timestamptz NOT NULL,
    event_id uuid,
    PRIMARY KEY (tenant_id, achievement_id, user_id)
  );
  `,
  `
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
  `,
  `
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
  `,
  `
  -- The last value of every field of every user hash in Redis (NULL: deleted),
  -- versioned by the change stream's entry id so a late batch never wins.
  CREATE TABLE user_fields (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    field text NOT NULL,
    value text,
    ver numeric NOT NULL,
    PRIMARY KEY (tenant_id, user_id, field)
  );

  -- Live leaderboard membership with exact scores (NULL: left the board).
  CREATE TABLE board_entries (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    leaderboard_id uuid NOT NULL,
    run integer NOT NULL,
    grp text NOT NULL,
    user_id text NOT NULL,
    score double precision,
    ver numeric NOT NULL,
    PRIMARY KEY (tenant_id, leaderboard_id, run, grp, user_id)
  );
  `,
  `
  -- A key's own rate limit (requests per second, 0: unlimited; burst: at once).
  -- NULL: the deployment default (RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST).
  ALTER TABLE api_keys
    ADD COLUMN rate_limit double precision CHECK (rate_limit >= 0),
    ADD COLUMN rate_burst integer CHECK (rate_burst >= 1);
  `,
  `
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
  `,
  `
  -- The tables the flusher fills on every event check their tenant once per
  -- batch (the flusher locks the tenant row, see store/flusher.ts) instead of
  -- once per row; removing a tenant deletes their rows (store/tenants.ts).
  ALTER TABLE events DROP CONSTRAINT events_tenant_id_fkey;
  ALTER TABLE points_awards DROP CONSTRAINT points_awards_tenant_id_fkey;
  ALTER TABLE leaderboard_events DROP CONSTRAINT leaderboard_events_tenant_id_fkey;
  ALTER TABLE achievement_completions DROP CONSTRAINT achievement_completions_tenant_id_fkey;
  ALTER TABLE streak_periods DROP CONSTRAINT streak_periods_tenant_id_fkey;
  ALTER TABLE board_entries DROP CONSTRAINT board_entries_tenant_id_fkey;

  -- Every user hash as one row (field -> [value or NULL when deleted, version]):
  -- an event rewrites one row instead of one per changed field.
  CREATE TABLE user_state (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    fields jsonb NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
  );
  INSERT INTO user_state (tenant_id, user_id, fields)
    SELECT tenant_id, user_id, jsonb_object_agg(field, jsonb_build_array(value, ver)) FROM user_fields GROUP BY tenant_id, user_id;
  DROP TABLE user_fields;
  `,
  `
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
  `,
  `
  -- Erased users (DELETE /admin/v1/users/{id}): only a SHA-256 of tenant and
  -- user id (see store/privacy.ts), never the id itself, with when. ver is
  -- the change stream's position of the erasure: the flusher drops any older
  -- record of that user it still holds, so nothing erased comes back.
  CREATE TABLE user_erasures (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_hash text NOT NULL,
    erased_at timestamptz NOT NULL,
    ver numeric NOT NULL,
    PRIMARY KEY (tenant_id, user_hash)
  );
  CREATE INDEX user_erasures_by_ver ON user_erasures (tenant_id, ver);
  `,
  `
  -- Console reads (src/api/admin/analytics.ts, user-events.ts, store/rollups.ts):
  -- each an index range scan of one tenant between two instants, with the
  -- columns the query needs included so Postgres can answer from the index alone.
  CREATE INDEX events_by_time ON events (tenant_id, occurred_at) INCLUDE (metric_id, user_id, value);
  CREATE INDEX events_by_user_time ON events (tenant_id, user_id, occurred_at DESC);
  CREATE INDEX points_awards_by_time ON points_awards (tenant_id, at) INCLUDE (system_id, awarded);
  CREATE INDEX streak_periods_by_period ON streak_periods (tenant_id, frequency, period) INCLUDE (user_id, length);
  CREATE INDEX achievement_completions_by_time ON achievement_completions (tenant_id, achievement_id, achieved_at);

  -- Sums of closed UTC days (src/store/rollups.ts): a year of analytics reads
  -- these few hundred rows instead of every event. A rollup_days row says the
  -- day is summed (active_users may be 0).
  CREATE TABLE rollup_days (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    day date NOT NULL,
    active_users integer NOT NULL,
    PRIMARY KEY (tenant_id, day)
  );
  CREATE TABLE rollup_events (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    day date NOT NULL,
    metric_id uuid NOT NULL,
    events integer NOT NULL,
    total numeric NOT NULL,
    PRIMARY KEY (tenant_id, day, metric_id)
  );
  CREATE TABLE rollup_points (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    day date NOT NULL,
    system_id uuid NOT NULL,
    issued numeric NOT NULL,
    consumed numeric NOT NULL,
    awards integer NOT NULL,
    PRIMARY KEY (tenant_id, day, system_id)
  );
  `,
  `
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
  `,
  `
  -- Every version of every points trigger, as the Application API shows it
  -- (names of its metric or achievement included), kept after the trigger
  -- is edited or deleted: an award shows the trigger that paid it.
  CREATE TABLE points_trigger_versions (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    trigger_id uuid NOT NULL,
    trigger jsonb NOT NULL
  );
  ALTER TABLE points_awards ADD COLUMN trigger_version uuid;
  `,
  `
  -- Retention settings (control ratio, notification defaults, email-due
  -- webhooks; see src/domain/retention.ts), one row per tenant, whole.
  CREATE TABLE retention_settings (
    tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
    settings jsonb NOT NULL,
    updated timestamptz NOT NULL
  );
  `,
  `
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
  `,
  `
  -- The flusher writes an operation's awards and rank changes only when it
  -- stores the operation for the first time (store/flush-batch.ts writeOnce):
  -- an event by its own primary key, another operation that pays points
  -- (a time grant, an achievement completed through the API, a review) by
  -- its id here. Those history rows then need no unique index: one index
  -- entry fewer to write for each.
  CREATE TABLE flushed_operations (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE
  );
  -- Operations already stored count as stored (a record flushed before this
  -- migration may still come again).
  INSERT INTO flushed_operations (id, tenant_id)
    SELECT DISTINCT a.event_id, a.tenant_id FROM points_awards a
    WHERE a.event_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM events e WHERE e.id = a.event_id);
  ALTER TABLE points_awards DROP CONSTRAINT points_awards_pkey;
  ALTER TABLE leaderboard_events DROP CONSTRAINT leaderboard_events_pkey;

  -- Two indexes whose reads the user's other index serves as well, each an
  -- index entry fewer per event or award. A points summary sums a user's
  -- awards of one system (it already reads every award before its range);
  -- the console's list of a user's events reads the user's events by metric
  -- and sorts them.
  DROP INDEX points_awards_by_date;
  DROP INDEX events_by_user_time;
  `,
  `
  -- The newest stream version a user's row holds: a batch wholly newer than
  -- it merges its fields without comparing them one by one (flush-batch.ts
  -- writeUserState). NULL on rows written before, which compare field by field.
  ALTER TABLE user_state ADD COLUMN ver bigint;
  -- Nothing reads a rank change's id since its primary key went (writeOnce
  -- keeps the rows single): 16 bytes and a hash fewer for each.
  ALTER TABLE leaderboard_events DROP COLUMN id;

  -- An event is written once under (tenant, time, id) instead of its id
  -- alone: a record that comes again carries the same time, so it is still
  -- found (flush-batch.ts writeOnce), and an index in time order takes each
  -- new entry at its end, where a random id lands anywhere in the index.
  -- The time index already there becomes that key: one index fewer per
  -- event. Nothing reads an event by its id alone.
  CREATE UNIQUE INDEX events_once ON events (tenant_id, occurred_at, id) INCLUDE (metric_id, user_id, value);
  DROP INDEX events_by_time;
  ALTER TABLE events DROP CONSTRAINT events_pkey;
  `,
  `
  -- The key that seals stored credentials when SECRETS_KEY is unset
  -- (store/secrets.ts): generated once, shared by every process.
  CREATE TABLE secret_key (id integer PRIMARY KEY CHECK (id = 1), key bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
  `,
  `
  -- Users who never sent a zone are in their tenant's default zone
  -- (retention settings' defaultTimeZone; America/New_York unless set, as in
  -- Trophy). Tenants from before keep the UTC they had. Only an upgrade has
  -- migrations applied by an earlier run: a database created by this run
  -- holds just its default tenant, new, which takes the new default.
  INSERT INTO retention_settings (tenant_id, settings, updated)
    SELECT id, '{"defaultTimeZone": "UTC"}', now() FROM tenants WHERE (SELECT min(applied_at) FROM laurel_migrations) < now()
    ON CONFLICT (tenant_id) DO UPDATE SET settings = retention_settings.settings || '{"defaultTimeZone": "UTC"}'::jsonb;
  UPDATE tenants SET config_version = config_version + 1 WHERE (SELECT min(applied_at) FROM laurel_migrations) < now();
  `,
  `
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
  `,
  `
  -- Admin keys with a lifecycle (src/api/admin/admin-keys.ts). source: api
  -- (made through the API), bootstrap (printed at the first start) or
  -- environment (ADMIN_API_KEY: listed, but only its variable changes it; its
  -- row holds no usable hash). last_used moves at most once a minute.
  ALTER TABLE api_keys
    ADD COLUMN name text,
    ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
    ADD COLUMN source text CHECK (source IN ('api', 'bootstrap', 'environment')),
    ADD COLUMN last_used timestamptz;
  UPDATE api_keys SET source = 'bootstrap', name = 'Bootstrap key' WHERE kind = 'admin';
  CREATE UNIQUE INDEX api_keys_one_environment ON api_keys ((true)) WHERE source = 'environment';

  -- The audit log: one row per change made through the Admin API, never
  -- updated. Monthly partitions (audit_log_YYYYMM, made on demand by
  -- store/audit.ts), dropped whole past AUDIT_RETENTION_DAYS.
  CREATE SEQUENCE audit_log_seq;
  CREATE TABLE audit_log (
    id bigint NOT NULL DEFAULT nextval('audit_log_seq'),
    at timestamptz NOT NULL,
    key_id text NOT NULL,
    key_prefix text NOT NULL,
    tenant_id uuid,
    method text NOT NULL,
    route text NOT NULL,
    path text NOT NULL,
    resource text NOT NULL,
    resource_ids text[] NOT NULL,
    action text NOT NULL,
    status integer NOT NULL,
    changes jsonb
  ) PARTITION BY RANGE (at);
  CREATE INDEX audit_log_newest ON audit_log (at DESC, id DESC);
  CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$;
  CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
  `,
  `
  -- Messages Laurel sends itself (docs/messages.md). A channel's settings are
  -- one sealed JSON value (store/messages.ts): credentials never sit in clear.
  CREATE TABLE message_channels (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    channel text NOT NULL CHECK (channel IN ('email', 'apns', 'fcm', 'expo')),
    active boolean NOT NULL,                -- kept in clear: the due logic asks on every batch
    settings text NOT NULL,
    updated timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, channel)
  );
  CREATE TABLE message_templates (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    type text NOT NULL,
    template jsonb NOT NULL,
    updated timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, type)
  );
  -- The outbox of messages: one row per due notice (the due webhook's derived
  -- id) and channel, so a notice is queued once whatever runs twice.
  CREATE TABLE messages (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    event_id uuid NOT NULL,
    user_id text NOT NULL,
    type text NOT NULL,
    channel text NOT NULL,
    payload text NOT NULL,                  -- the due webhook's body: what the template is rendered from
    status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'retrying', 'failed', 'suppressed')),
    attempts integer NOT NULL DEFAULT 0,
    last_response text,
    next_attempt_at timestamptz NOT NULL,   -- also the lease of an attempt in flight
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    UNIQUE (tenant_id, event_id, channel)
  );
  CREATE INDEX messages_due ON messages (next_attempt_at) WHERE status IN ('queued', 'retrying');
  CREATE INDEX messages_log ON messages (tenant_id, created DESC);
  CREATE INDEX messages_by_user ON messages (tenant_id, user_id);
  -- Signs unsubscribe links (messages/unsubscribe.ts): made once, shared by every process.
  CREATE TABLE unsubscribe_key (id integer PRIMARY KEY CHECK (id = 1), key bytea NOT NULL);
  `,
  `
  -- Config versions made by applying a configuration document (PUT /admin/v1/config,
  -- revert), each with the document as it stood after (for revert) and the key that made it.
  CREATE TABLE config_versions (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    version bigint NOT NULL,
    at timestamptz NOT NULL,
    key_id text NOT NULL,
    changes integer NOT NULL,
    document jsonb NOT NULL,
    PRIMARY KEY (tenant_id, version)
  );
  `,
  `
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
  `,
  `
  -- A user's hash (about 1.2 KB of JSON) is rewritten by every batch
  -- touching the user: room is left on its page, so the rewrite mostly
  -- stays there (a HOT update: no new index entry, and the page's older
  -- versions are reclaimed as it fills, without a vacuum). A hash past
  -- Postgres's 2 KB threshold is compressed with lz4 and kept in its row.
  ALTER TABLE user_state ALTER COLUMN fields SET STORAGE MAIN, ALTER COLUMN fields SET COMPRESSION lz4;
  ALTER TABLE user_state SET (fillfactor = 70);
  `,
  `
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
  `,
];

/** Tables without a foreign key to tenants (see the migration above): a tenant's removal empties them itself. */
export const TENANT_ROW_TABLES = ['events', 'points_awards', 'leaderboard_events', 'achievement_completions', 'streak_periods', 'board_entries', 'event_days',
  'league_entries', 'league_runs', 'league_results', 'league_tiers'] as const;

/** Apply the migrations not applied yet (up to version `upTo`: a test of an upgrade starts on an older schema). */
export async function migrate(db: Pool, schema: string, upTo = MIGRATIONS.length): Promise<number> {
  return tx(db, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('laurel-migrate:' || $1))`, [schema]);
    await c.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await c.query(`SET LOCAL search_path TO "${schema}"`);
    await c.query(`CREATE TABLE IF NOT EXISTS laurel_migrations (
      version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await c.query<{ v: number | null }>('SELECT max(version) AS v FROM laurel_migrations');
    const from = rows[0]?.v ?? 0;
    for (let v = from + 1; v <= upTo; v++) {
      await c.query(MIGRATIONS[v - 1]!);
      await c.query('INSERT INTO laurel_migrations (version) VALUES ($1)', [v]);
    }
    return Math.max(0, upTo - from);
  });
}
