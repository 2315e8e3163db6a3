-- What the steps in this folder make, as pg_dump --schema-only prints it (the schema named laurel).
-- Checked by test/migrations.test.ts; after adding a step, LAUREL_WRITE_SCHEMA=1 npx tap dist/test/migrations.test.js rewrites it.

CREATE FUNCTION laurel.audit_log_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$;

CREATE FUNCTION laurel.user_state_field(state text, recent text, field text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$
  SELECT v FROM (
    SELECT 1 AS o, (g->>0)::numeric AS ver, g->>(i + 1) AS v FROM jsonb_array_elements(recent::jsonb) AS g, generate_series(1, jsonb_array_length(g) - 1, 2) AS i
    WHERE g->>i = field
    UNION ALL
    SELECT 2, (g->>0)::numeric, g->>(i + 1) FROM jsonb_array_elements(state::jsonb) AS g, generate_series(1, jsonb_array_length(g) - 1, 2) AS i
    WHERE g->>i = field) x
  ORDER BY o, ver DESC LIMIT 1
$$;

CREATE TABLE laurel.achievement_completions (
    tenant_id uuid NOT NULL,
    achievement_id uuid NOT NULL,
    user_id text NOT NULL,
    achieved_at timestamp with time zone NOT NULL,
    event_id uuid
);

CREATE TABLE laurel.achievements (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    slot integer NOT NULL,
    key text NOT NULL,
    name text NOT NULL,
    description text,
    badge_url text,
    status text NOT NULL,
    trigger text NOT NULL,
    metric_id uuid,
    metric_value numeric,
    streak_length integer,
    prerequisite_ids uuid[] DEFAULT '{}'::uuid[] NOT NULL,
    user_attributes jsonb DEFAULT '[]'::jsonb NOT NULL,
    event_attributes jsonb DEFAULT '[]'::jsonb NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL
);

CREATE TABLE laurel.api_keys (
    id uuid NOT NULL,
    prefix text NOT NULL,
    secret_hash text NOT NULL,
    kind text NOT NULL,
    tenant_id uuid,
    user_id text,
    created timestamp with time zone NOT NULL,
    rate_limit double precision,
    rate_burst integer,
    name text,
    status text DEFAULT 'active'::text NOT NULL,
    source text,
    last_used timestamp with time zone,
    CONSTRAINT api_keys_kind_check CHECK ((kind = ANY (ARRAY['admin'::text, 'application'::text]))),
    CONSTRAINT api_keys_rate_burst_check CHECK ((rate_burst >= 1)),
    CONSTRAINT api_keys_rate_limit_check CHECK ((rate_limit >= (0)::double precision)),
    CONSTRAINT api_keys_source_check CHECK ((source = ANY (ARRAY['api'::text, 'bootstrap'::text, 'environment'::text]))),
    CONSTRAINT api_keys_status_check CHECK ((status = ANY (ARRAY['active'::text, 'inactive'::text])))
);

CREATE TABLE laurel.attributes (
    id uuid NOT NULL,
    seq bigint NOT NULL,
    tenant_id uuid NOT NULL,
    key text NOT NULL,
    name text NOT NULL,
    type text NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL,
    CONSTRAINT attributes_type_check CHECK ((type = ANY (ARRAY['user'::text, 'event'::text])))
);

ALTER TABLE laurel.attributes ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME laurel.attributes_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE SEQUENCE laurel.audit_log_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

CREATE TABLE laurel.audit_log (
    id bigint DEFAULT nextval('laurel.audit_log_seq'::regclass) NOT NULL,
    at timestamp with time zone NOT NULL,
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
)
PARTITION BY RANGE (at);

CREATE TABLE laurel.award_kinds (
    tenant_id uuid NOT NULL,
    id bigint NOT NULL,
    system_id uuid NOT NULL,
    trigger_id uuid NOT NULL,
    trigger_version uuid,
    boosts text
);

ALTER TABLE laurel.award_kinds ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME laurel.award_kinds_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE laurel.events (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    metric_id uuid NOT NULL,
    value numeric NOT NULL,
    total numeric NOT NULL,
    local_date date NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    idempotency_key text,
    attributes jsonb,
    ver bigint,
    awards text
)
PARTITION BY RANGE (occurred_at);

CREATE TABLE laurel.points_awards (
    id uuid NOT NULL,
    seq bigint NOT NULL,
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    system_id uuid NOT NULL,
    trigger_id uuid NOT NULL,
    event_id uuid,
    awarded numeric NOT NULL,
    total numeric NOT NULL,
    at timestamp with time zone NOT NULL,
    local_date date NOT NULL,
    boosts jsonb DEFAULT '[]'::jsonb NOT NULL,
    trigger_version uuid,
    ver bigint
);

CREATE VIEW laurel.awards AS
 SELECT points_awards.tenant_id,
    points_awards.user_id,
    points_awards.system_id,
    points_awards.trigger_id,
    points_awards.trigger_version,
    points_awards.event_id,
    points_awards.id,
    NULL::integer AS idx,
    points_awards.awarded,
    points_awards.total,
    points_awards.at,
    points_awards.local_date,
    points_awards.boosts,
    points_awards.ver,
    points_awards.seq AS place
   FROM laurel.points_awards
UNION ALL
 SELECT e.tenant_id,
    e.user_id,
    k.system_id,
    k.trigger_id,
    k.trigger_version,
    e.id AS event_id,
    NULL::uuid AS id,
    (p.a[(j.j + 2)])::integer AS idx,
    (p.a[(j.j + 3)])::numeric AS awarded,
    (p.a[(j.j + 4)])::numeric AS total,
    e.occurred_at AS at,
    e.local_date,
        CASE
            WHEN (k.boosts IS NULL) THEN '[]'::jsonb
            ELSE to_jsonb(string_to_array(k.boosts, ','::text))
        END AS boosts,
    e.ver,
    (((j.j / 4) + 1))::bigint AS place
   FROM (((laurel.events e
     CROSS JOIN LATERAL ( SELECT (string_to_array(e.awards, ' '::text))::bigint[] AS a
         OFFSET 0) p)
     CROSS JOIN LATERAL generate_series(0, (cardinality(p.a) - 4), 4) j(j))
     JOIN laurel.award_kinds k ON (((k.tenant_id = e.tenant_id) AND (k.id = p.a[(j.j + 1)]))))
  WHERE (e.awards IS NOT NULL);

CREATE TABLE laurel.batch_rejections (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    batch_id text NOT NULL,
    item_index integer NOT NULL,
    user_id text NOT NULL,
    item jsonb NOT NULL,
    status integer NOT NULL,
    error text NOT NULL,
    at timestamp with time zone NOT NULL
);

CREATE TABLE laurel.board_entries (
    tenant_id uuid NOT NULL,
    leaderboard_id uuid NOT NULL,
    run integer NOT NULL,
    grp text NOT NULL,
    user_id text NOT NULL,
    score double precision,
    ver numeric NOT NULL
);

CREATE TABLE laurel.config_versions (
    tenant_id uuid NOT NULL,
    version bigint NOT NULL,
    at timestamp with time zone NOT NULL,
    key_id text NOT NULL,
    changes integer NOT NULL,
    document jsonb NOT NULL
);

CREATE TABLE laurel.dead_letters (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    stream_id text NOT NULL,
    record jsonb NOT NULL,
    error text NOT NULL,
    sqlstate text,
    first_failed_at timestamp with time zone NOT NULL,
    last_failed_at timestamp with time zone NOT NULL,
    replays integer DEFAULT 0 NOT NULL
);

CREATE TABLE laurel.event_days (
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    metric_id uuid NOT NULL,
    local_date date NOT NULL,
    events integer NOT NULL,
    value numeric NOT NULL
);

CREATE TABLE laurel.events_default (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    metric_id uuid NOT NULL,
    value numeric NOT NULL,
    total numeric NOT NULL,
    local_date date NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    idempotency_key text,
    attributes jsonb,
    ver bigint,
    awards text
);

CREATE TABLE laurel.flush_marks (
    tenant_id uuid NOT NULL,
    ver bigint,
    first_at timestamp with time zone
);

CREATE TABLE laurel.flushed_operations (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL
);

CREATE TABLE laurel.laurel_migrations (
    version integer NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL,
    name text
);

CREATE TABLE laurel.leaderboard_events (
    seq bigint NOT NULL,
    tenant_id uuid NOT NULL,
    leaderboard_id uuid NOT NULL,
    run integer NOT NULL,
    user_id text NOT NULL,
    at timestamp with time zone NOT NULL,
    local_date date NOT NULL,
    previous_rank integer,
    rank integer,
    previous_value bigint,
    value bigint
);

ALTER TABLE laurel.leaderboard_events ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME laurel.leaderboard_events_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE laurel.leaderboard_results (
    tenant_id uuid NOT NULL,
    leaderboard_id uuid NOT NULL,
    run integer NOT NULL,
    grp text NOT NULL,
    user_id text NOT NULL,
    rank integer NOT NULL,
    value bigint NOT NULL
);

CREATE TABLE laurel.leaderboards (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    slot integer NOT NULL,
    key text NOT NULL,
    name text NOT NULL,
    description text,
    status text NOT NULL,
    rank_by text NOT NULL,
    metric_id uuid,
    points_system_id uuid,
    max_participants integer NOT NULL,
    start_date date NOT NULL,
    end_date date,
    start_time text,
    end_time text,
    breakdown_attributes uuid[] DEFAULT '{}'::uuid[] NOT NULL,
    run_unit text,
    run_interval integer,
    finalized_run integer DEFAULT '-1'::integer NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL,
    started_run integer DEFAULT '-1'::integer NOT NULL
);

CREATE TABLE laurel.league_entries (
    tenant_id uuid NOT NULL,
    league_id uuid NOT NULL,
    run integer NOT NULL,
    user_id text NOT NULL,
    tier integer NOT NULL,
    cohort integer NOT NULL,
    score double precision,
    ver numeric NOT NULL
);

CREATE TABLE laurel.league_results (
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
    new_tier_key text NOT NULL
);

CREATE TABLE laurel.league_runs (
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
    finalized_at timestamp with time zone NOT NULL
);

CREATE TABLE laurel.league_tiers (
    tenant_id uuid NOT NULL,
    league_id uuid NOT NULL,
    user_id text NOT NULL,
    tier integer NOT NULL
);

CREATE TABLE laurel.leagues (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    slot integer NOT NULL,
    key text NOT NULL,
    name text NOT NULL,
    description text,
    status text NOT NULL,
    rank_by text NOT NULL,
    metric_id uuid,
    points_system_id uuid,
    cadence text NOT NULL,
    week_start text NOT NULL,
    time_zone text NOT NULL,
    cohort_size integer NOT NULL,
    tiers jsonb NOT NULL,
    next_cohort_size integer,
    next_tiers jsonb,
    next_from_run integer,
    finalized_run integer NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL
);

CREATE TABLE laurel.message_channels (
    tenant_id uuid NOT NULL,
    channel text NOT NULL,
    active boolean NOT NULL,
    settings text NOT NULL,
    updated timestamp with time zone NOT NULL,
    CONSTRAINT message_channels_channel_check CHECK ((channel = ANY (ARRAY['email'::text, 'apns'::text, 'fcm'::text, 'expo'::text])))
);

CREATE TABLE laurel.message_templates (
    tenant_id uuid NOT NULL,
    type text NOT NULL,
    template jsonb NOT NULL,
    updated timestamp with time zone NOT NULL
);

CREATE TABLE laurel.messages (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    event_id uuid NOT NULL,
    user_id text NOT NULL,
    type text NOT NULL,
    channel text NOT NULL,
    payload text NOT NULL,
    status text DEFAULT 'queued'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    last_response text,
    next_attempt_at timestamp with time zone NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL,
    CONSTRAINT messages_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'sent'::text, 'retrying'::text, 'failed'::text, 'suppressed'::text])))
);

CREATE TABLE laurel.metrics (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    slot integer NOT NULL,
    key text NOT NULL,
    name text NOT NULL,
    unit_type text NOT NULL,
    units text NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL
);

ALTER TABLE laurel.points_awards ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME laurel.points_awards_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE laurel.points_boosts (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    system_id uuid NOT NULL,
    seq bigint NOT NULL,
    name text NOT NULL,
    user_id text,
    user_attributes jsonb DEFAULT '[]'::jsonb NOT NULL,
    start_date date NOT NULL,
    end_date date,
    multiplier numeric NOT NULL,
    rounding text NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL,
    announced_start date,
    announced_end date
);

ALTER TABLE laurel.points_boosts ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME laurel.points_boosts_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE laurel.points_days (
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    system_id uuid NOT NULL,
    local_date date NOT NULL,
    awarded numeric NOT NULL
);

CREATE TABLE laurel.points_levels (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    system_id uuid NOT NULL,
    seq bigint NOT NULL,
    key text NOT NULL,
    name text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    badge_url text,
    points bigint NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL
);

ALTER TABLE laurel.points_levels ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME laurel.points_levels_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE laurel.points_systems (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    slot integer NOT NULL,
    key text NOT NULL,
    name text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    badge_url text,
    max_points bigint,
    status text DEFAULT 'active'::text NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL
);

CREATE TABLE laurel.points_trigger_versions (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    trigger_id uuid NOT NULL,
    trigger jsonb NOT NULL
);

CREATE TABLE laurel.points_triggers (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    system_id uuid NOT NULL,
    slot integer NOT NULL,
    type text NOT NULL,
    points bigint NOT NULL,
    status text NOT NULL,
    metric_id uuid,
    metric_threshold bigint,
    achievement_id uuid,
    streak_length integer,
    time_unit text,
    time_interval integer,
    user_attributes jsonb DEFAULT '[]'::jsonb NOT NULL,
    event_attributes jsonb DEFAULT '[]'::jsonb NOT NULL,
    block_if_out_of_points boolean DEFAULT false NOT NULL,
    activated timestamp with time zone,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL
);

CREATE TABLE laurel.retention_settings (
    tenant_id uuid NOT NULL,
    settings jsonb NOT NULL,
    updated timestamp with time zone NOT NULL
);

CREATE TABLE laurel.rollup_days (
    tenant_id uuid NOT NULL,
    day date NOT NULL,
    active_users integer NOT NULL
);

CREATE TABLE laurel.rollup_events (
    tenant_id uuid NOT NULL,
    day date NOT NULL,
    metric_id uuid NOT NULL,
    events integer NOT NULL,
    total numeric NOT NULL,
    active_users integer NOT NULL
);

CREATE TABLE laurel.rollup_points (
    tenant_id uuid NOT NULL,
    day date NOT NULL,
    system_id uuid NOT NULL,
    issued numeric NOT NULL,
    consumed numeric NOT NULL,
    awards integer NOT NULL
);

CREATE TABLE laurel.rollup_trigger_points (
    tenant_id uuid NOT NULL,
    day date NOT NULL,
    system_id uuid NOT NULL,
    trigger_id uuid NOT NULL,
    issued numeric NOT NULL,
    consumed numeric NOT NULL
);

CREATE TABLE laurel.rollup_user_days (
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    local_date date NOT NULL,
    day date NOT NULL,
    events integer NOT NULL
);

CREATE TABLE laurel.rollup_users (
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    first date NOT NULL,
    d1 boolean NOT NULL,
    d7 boolean NOT NULL,
    d30 boolean NOT NULL,
    days integer NOT NULL,
    events integer NOT NULL,
    weeks bigint NOT NULL
);

CREATE TABLE laurel.secret_key (
    id integer NOT NULL,
    key bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT secret_key_id_check CHECK ((id = 1))
);

CREATE TABLE laurel.streak_pauses (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    start_date date NOT NULL,
    end_date date NOT NULL,
    created timestamp with time zone NOT NULL
);

CREATE TABLE laurel.streak_periods (
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    frequency character(1) NOT NULL,
    period integer NOT NULL,
    length integer NOT NULL,
    used_freeze boolean NOT NULL,
    used_pause boolean NOT NULL
);

CREATE TABLE laurel.streak_settings (
    tenant_id uuid NOT NULL,
    enabled boolean NOT NULL,
    frequency text NOT NULL,
    metrics jsonb NOT NULL,
    mode text NOT NULL,
    week_start text NOT NULL,
    initial_freezes integer NOT NULL,
    freeze_auto_earn_interval integer NOT NULL,
    freeze_auto_earn_amount integer NOT NULL,
    max_freezes integer NOT NULL,
    updated timestamp with time zone NOT NULL
);

CREATE SEQUENCE laurel.tenant_slot_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

CREATE TABLE laurel.tenants (
    id uuid NOT NULL,
    slot integer NOT NULL,
    customer_id text,
    name text NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    is_default boolean DEFAULT false NOT NULL,
    config_version bigint DEFAULT 1 NOT NULL,
    seq integer DEFAULT 0 NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL
);

CREATE TABLE laurel.unsubscribe_key (
    id integer NOT NULL,
    key bytea NOT NULL,
    CONSTRAINT unsubscribe_key_id_check CHECK ((id = 1))
);

CREATE TABLE laurel.user_erasures (
    tenant_id uuid NOT NULL,
    user_hash text NOT NULL,
    erased_at timestamp with time zone NOT NULL,
    ver numeric NOT NULL
);

CREATE TABLE laurel.user_state (
    tenant_id uuid NOT NULL,
    user_id text NOT NULL,
    state text NOT NULL,
    recent text
)
WITH (fillfactor='70');

CREATE TABLE laurel.users (
    tenant_id uuid NOT NULL,
    id text NOT NULL,
    email text,
    name text,
    tz text,
    subscribe_to_emails boolean DEFAULT true NOT NULL,
    device_tokens jsonb,
    attributes jsonb DEFAULT '{}'::jsonb NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL
);

CREATE TABLE laurel.webhook_deliveries (
    id uuid NOT NULL,
    tenant_id uuid NOT NULL,
    webhook_id uuid NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    payload text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone NOT NULL,
    last_attempt_at timestamp with time zone,
    last_status integer,
    last_error text,
    created timestamp with time zone NOT NULL,
    delivered_at timestamp with time zone,
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'dead'::text])))
);

CREATE TABLE laurel.webhooks (
    id uuid NOT NULL,
    seq bigint NOT NULL,
    tenant_id uuid NOT NULL,
    url text NOT NULL,
    description text,
    event_types text[] NOT NULL,
    status text NOT NULL,
    secret text NOT NULL,
    created timestamp with time zone NOT NULL,
    updated timestamp with time zone NOT NULL,
    CONSTRAINT webhooks_status_check CHECK ((status = ANY (ARRAY['active'::text, 'inactive'::text])))
);

ALTER TABLE laurel.webhooks ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME laurel.webhooks_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE laurel.wrapped_percentiles (
    tenant_id uuid NOT NULL,
    unit character(1) NOT NULL,
    period_start date NOT NULL,
    kind character(1) NOT NULL,
    item_id uuid NOT NULL,
    cuts double precision[] NOT NULL,
    users integer NOT NULL,
    refreshed_at timestamp with time zone NOT NULL
);

ALTER TABLE ONLY laurel.events ATTACH PARTITION laurel.events_default DEFAULT;

ALTER TABLE ONLY laurel.achievement_completions
    ADD CONSTRAINT achievement_completions_pkey PRIMARY KEY (tenant_id, achievement_id, user_id) INCLUDE (achieved_at);

ALTER TABLE ONLY laurel.achievements
    ADD CONSTRAINT achievements_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.achievements
    ADD CONSTRAINT achievements_tenant_id_key_key UNIQUE (tenant_id, key);

ALTER TABLE ONLY laurel.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.api_keys
    ADD CONSTRAINT api_keys_prefix_key UNIQUE (prefix);

ALTER TABLE ONLY laurel.attributes
    ADD CONSTRAINT attributes_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.attributes
    ADD CONSTRAINT attributes_tenant_id_type_key_key UNIQUE (tenant_id, type, key);

ALTER TABLE ONLY laurel.award_kinds
    ADD CONSTRAINT award_kinds_once UNIQUE NULLS NOT DISTINCT (tenant_id, system_id, trigger_id, trigger_version, boosts);

ALTER TABLE ONLY laurel.award_kinds
    ADD CONSTRAINT award_kinds_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY laurel.batch_rejections
    ADD CONSTRAINT batch_rejections_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.board_entries
    ADD CONSTRAINT board_entries_pkey PRIMARY KEY (tenant_id, leaderboard_id, run, grp, user_id);

ALTER TABLE ONLY laurel.config_versions
    ADD CONSTRAINT config_versions_pkey PRIMARY KEY (tenant_id, version);

ALTER TABLE ONLY laurel.dead_letters
    ADD CONSTRAINT dead_letters_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.dead_letters
    ADD CONSTRAINT dead_letters_tenant_id_stream_id_key UNIQUE (tenant_id, stream_id);

ALTER TABLE ONLY laurel.event_days
    ADD CONSTRAINT event_days_pkey PRIMARY KEY (tenant_id, user_id, metric_id, local_date);

ALTER TABLE ONLY laurel.flush_marks
    ADD CONSTRAINT flush_marks_pkey PRIMARY KEY (tenant_id);

ALTER TABLE ONLY laurel.flushed_operations
    ADD CONSTRAINT flushed_operations_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY laurel.laurel_migrations
    ADD CONSTRAINT laurel_migrations_pkey PRIMARY KEY (version);

ALTER TABLE ONLY laurel.leaderboard_results
    ADD CONSTRAINT leaderboard_results_pkey PRIMARY KEY (tenant_id, leaderboard_id, run, grp, user_id);

ALTER TABLE ONLY laurel.leaderboards
    ADD CONSTRAINT leaderboards_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.leaderboards
    ADD CONSTRAINT leaderboards_tenant_id_key_key UNIQUE (tenant_id, key);

ALTER TABLE ONLY laurel.league_entries
    ADD CONSTRAINT league_entries_pkey PRIMARY KEY (tenant_id, league_id, run, user_id);

ALTER TABLE ONLY laurel.league_results
    ADD CONSTRAINT league_results_pkey PRIMARY KEY (tenant_id, league_id, user_id, run);

ALTER TABLE ONLY laurel.league_runs
    ADD CONSTRAINT league_runs_pkey PRIMARY KEY (tenant_id, league_id, run);

ALTER TABLE ONLY laurel.league_tiers
    ADD CONSTRAINT league_tiers_pkey PRIMARY KEY (tenant_id, league_id, user_id);

ALTER TABLE ONLY laurel.leagues
    ADD CONSTRAINT leagues_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.leagues
    ADD CONSTRAINT leagues_tenant_id_key_key UNIQUE (tenant_id, key);

ALTER TABLE ONLY laurel.message_channels
    ADD CONSTRAINT message_channels_pkey PRIMARY KEY (tenant_id, channel);

ALTER TABLE ONLY laurel.message_templates
    ADD CONSTRAINT message_templates_pkey PRIMARY KEY (tenant_id, type);

ALTER TABLE ONLY laurel.messages
    ADD CONSTRAINT messages_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.messages
    ADD CONSTRAINT messages_tenant_id_event_id_channel_key UNIQUE (tenant_id, event_id, channel);

ALTER TABLE ONLY laurel.metrics
    ADD CONSTRAINT metrics_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.metrics
    ADD CONSTRAINT metrics_tenant_id_key_key UNIQUE (tenant_id, key);

ALTER TABLE ONLY laurel.metrics
    ADD CONSTRAINT metrics_tenant_id_slot_key UNIQUE (tenant_id, slot);

ALTER TABLE ONLY laurel.points_boosts
    ADD CONSTRAINT points_boosts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.points_days
    ADD CONSTRAINT points_days_pkey PRIMARY KEY (tenant_id, user_id, system_id, local_date);

ALTER TABLE ONLY laurel.points_levels
    ADD CONSTRAINT points_levels_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.points_levels
    ADD CONSTRAINT points_levels_system_id_key_key UNIQUE (system_id, key);

ALTER TABLE ONLY laurel.points_systems
    ADD CONSTRAINT points_systems_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.points_systems
    ADD CONSTRAINT points_systems_tenant_id_key_key UNIQUE (tenant_id, key);

ALTER TABLE ONLY laurel.points_trigger_versions
    ADD CONSTRAINT points_trigger_versions_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.points_triggers
    ADD CONSTRAINT points_triggers_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.retention_settings
    ADD CONSTRAINT retention_settings_pkey PRIMARY KEY (tenant_id);

ALTER TABLE ONLY laurel.rollup_days
    ADD CONSTRAINT rollup_days_pkey PRIMARY KEY (tenant_id, day);

ALTER TABLE ONLY laurel.rollup_events
    ADD CONSTRAINT rollup_events_pkey PRIMARY KEY (tenant_id, day, metric_id);

ALTER TABLE ONLY laurel.rollup_points
    ADD CONSTRAINT rollup_points_pkey PRIMARY KEY (tenant_id, day, system_id);

ALTER TABLE ONLY laurel.rollup_trigger_points
    ADD CONSTRAINT rollup_trigger_points_pkey PRIMARY KEY (tenant_id, day, system_id, trigger_id);

ALTER TABLE ONLY laurel.rollup_user_days
    ADD CONSTRAINT rollup_user_days_pkey PRIMARY KEY (tenant_id, user_id, local_date, day);

ALTER TABLE ONLY laurel.rollup_users
    ADD CONSTRAINT rollup_users_pkey PRIMARY KEY (tenant_id, user_id);

ALTER TABLE ONLY laurel.secret_key
    ADD CONSTRAINT secret_key_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.streak_pauses
    ADD CONSTRAINT streak_pauses_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.streak_periods
    ADD CONSTRAINT streak_periods_pkey PRIMARY KEY (tenant_id, user_id, frequency, period);

ALTER TABLE ONLY laurel.streak_settings
    ADD CONSTRAINT streak_settings_pkey PRIMARY KEY (tenant_id);

ALTER TABLE ONLY laurel.tenants
    ADD CONSTRAINT tenants_customer_id_key UNIQUE (customer_id);

ALTER TABLE ONLY laurel.tenants
    ADD CONSTRAINT tenants_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.tenants
    ADD CONSTRAINT tenants_slot_key UNIQUE (slot);

ALTER TABLE ONLY laurel.unsubscribe_key
    ADD CONSTRAINT unsubscribe_key_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.user_erasures
    ADD CONSTRAINT user_erasures_pkey PRIMARY KEY (tenant_id, user_hash);

ALTER TABLE ONLY laurel.user_state
    ADD CONSTRAINT user_state_pkey PRIMARY KEY (tenant_id, user_id);

ALTER TABLE ONLY laurel.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (tenant_id, id);

ALTER TABLE ONLY laurel.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_webhook_id_event_id_key UNIQUE (webhook_id, event_id);

ALTER TABLE ONLY laurel.webhooks
    ADD CONSTRAINT webhooks_pkey PRIMARY KEY (id);

ALTER TABLE ONLY laurel.wrapped_percentiles
    ADD CONSTRAINT wrapped_percentiles_pkey PRIMARY KEY (tenant_id, unit, period_start, kind, item_id);

CREATE UNIQUE INDEX api_keys_one_environment ON laurel.api_keys USING btree ((true)) WHERE (source = 'environment'::text);

CREATE INDEX audit_log_newest ON ONLY laurel.audit_log USING btree (at DESC, id DESC);

CREATE INDEX batch_rejections_by_time ON laurel.batch_rejections USING btree (tenant_id, at DESC);

CREATE INDEX dead_letters_newest ON laurel.dead_letters USING btree (tenant_id, first_failed_at DESC, id);

CREATE INDEX events_by_time ON ONLY laurel.events USING brin (occurred_at) WITH (autosummarize='on');

CREATE INDEX events_by_user_metric_date ON ONLY laurel.events USING btree (tenant_id, user_id, metric_id, local_date);

CREATE INDEX events_default_occurred_at_idx ON laurel.events_default USING brin (occurred_at) WITH (autosummarize='on');

CREATE INDEX events_default_tenant_id_user_id_metric_id_local_date_idx ON laurel.events_default USING btree (tenant_id, user_id, metric_id, local_date);

CREATE INDEX leaderboard_events_by_user ON laurel.leaderboard_events USING btree (tenant_id, leaderboard_id, user_id, seq DESC);

CREATE INDEX league_results_by_cohort ON laurel.league_results USING btree (tenant_id, league_id, run, cohort, rank);

CREATE INDEX messages_by_user ON laurel.messages USING btree (tenant_id, user_id);

CREATE INDEX messages_due ON laurel.messages USING btree (next_attempt_at) WHERE (status = ANY (ARRAY['queued'::text, 'retrying'::text]));

CREATE INDEX messages_log ON laurel.messages USING btree (tenant_id, created DESC);

CREATE INDEX points_awards_by_time ON laurel.points_awards USING brin (at) WITH (autosummarize='on');

CREATE INDEX points_awards_by_user ON laurel.points_awards USING btree (tenant_id, user_id, system_id, seq DESC);

CREATE INDEX rollup_users_by_first ON laurel.rollup_users USING btree (tenant_id, first);

CREATE INDEX streak_pauses_by_user ON laurel.streak_pauses USING btree (tenant_id, user_id);

CREATE INDEX streak_periods_by_period ON laurel.streak_periods USING brin (period int4_minmax_multi_ops) WITH (autosummarize='on');

CREATE INDEX user_erasures_by_ver ON laurel.user_erasures USING btree (tenant_id, ver);

CREATE INDEX webhook_deliveries_by_status ON laurel.webhook_deliveries USING btree (webhook_id, status, created DESC);

CREATE INDEX webhook_deliveries_delivered ON laurel.webhook_deliveries USING btree (delivered_at) WHERE (status = 'delivered'::text);

CREATE INDEX webhook_deliveries_due ON laurel.webhook_deliveries USING btree (webhook_id, next_attempt_at) WHERE (status = 'pending'::text);

CREATE INDEX webhooks_by_tenant ON laurel.webhooks USING btree (tenant_id);

ALTER INDEX laurel.events_by_time ATTACH PARTITION laurel.events_default_occurred_at_idx;

ALTER INDEX laurel.events_by_user_metric_date ATTACH PARTITION laurel.events_default_tenant_id_user_id_metric_id_local_date_idx;

CREATE TRIGGER audit_log_append_only BEFORE DELETE OR UPDATE ON laurel.audit_log FOR EACH ROW EXECUTE FUNCTION laurel.audit_log_append_only();

ALTER TABLE ONLY laurel.achievements
    ADD CONSTRAINT achievements_metric_id_fkey FOREIGN KEY (metric_id) REFERENCES laurel.metrics(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.achievements
    ADD CONSTRAINT achievements_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.api_keys
    ADD CONSTRAINT api_keys_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.attributes
    ADD CONSTRAINT attributes_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.award_kinds
    ADD CONSTRAINT award_kinds_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.batch_rejections
    ADD CONSTRAINT batch_rejections_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.config_versions
    ADD CONSTRAINT config_versions_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.dead_letters
    ADD CONSTRAINT dead_letters_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.flush_marks
    ADD CONSTRAINT flush_marks_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.flushed_operations
    ADD CONSTRAINT flushed_operations_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.leaderboard_results
    ADD CONSTRAINT leaderboard_results_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.leaderboards
    ADD CONSTRAINT leaderboards_metric_id_fkey FOREIGN KEY (metric_id) REFERENCES laurel.metrics(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.leaderboards
    ADD CONSTRAINT leaderboards_points_system_id_fkey FOREIGN KEY (points_system_id) REFERENCES laurel.points_systems(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.leaderboards
    ADD CONSTRAINT leaderboards_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.leagues
    ADD CONSTRAINT leagues_metric_id_fkey FOREIGN KEY (metric_id) REFERENCES laurel.metrics(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.leagues
    ADD CONSTRAINT leagues_points_system_id_fkey FOREIGN KEY (points_system_id) REFERENCES laurel.points_systems(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.leagues
    ADD CONSTRAINT leagues_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.message_channels
    ADD CONSTRAINT message_channels_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.message_templates
    ADD CONSTRAINT message_templates_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.messages
    ADD CONSTRAINT messages_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.metrics
    ADD CONSTRAINT metrics_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.points_boosts
    ADD CONSTRAINT points_boosts_system_id_fkey FOREIGN KEY (system_id) REFERENCES laurel.points_systems(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.points_boosts
    ADD CONSTRAINT points_boosts_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.points_levels
    ADD CONSTRAINT points_levels_system_id_fkey FOREIGN KEY (system_id) REFERENCES laurel.points_systems(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.points_levels
    ADD CONSTRAINT points_levels_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.points_systems
    ADD CONSTRAINT points_systems_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.points_trigger_versions
    ADD CONSTRAINT points_trigger_versions_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.points_triggers
    ADD CONSTRAINT points_triggers_metric_id_fkey FOREIGN KEY (metric_id) REFERENCES laurel.metrics(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.points_triggers
    ADD CONSTRAINT points_triggers_system_id_fkey FOREIGN KEY (system_id) REFERENCES laurel.points_systems(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.points_triggers
    ADD CONSTRAINT points_triggers_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.retention_settings
    ADD CONSTRAINT retention_settings_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.rollup_days
    ADD CONSTRAINT rollup_days_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.rollup_events
    ADD CONSTRAINT rollup_events_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.rollup_points
    ADD CONSTRAINT rollup_points_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.rollup_trigger_points
    ADD CONSTRAINT rollup_trigger_points_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.rollup_user_days
    ADD CONSTRAINT rollup_user_days_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.rollup_users
    ADD CONSTRAINT rollup_users_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.streak_pauses
    ADD CONSTRAINT streak_pauses_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.streak_settings
    ADD CONSTRAINT streak_settings_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.user_erasures
    ADD CONSTRAINT user_erasures_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.user_state
    ADD CONSTRAINT user_state_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.users
    ADD CONSTRAINT users_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES laurel.webhooks(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.webhooks
    ADD CONSTRAINT webhooks_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;

ALTER TABLE ONLY laurel.wrapped_percentiles
    ADD CONSTRAINT wrapped_percentiles_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES laurel.tenants(id) ON DELETE CASCADE;
