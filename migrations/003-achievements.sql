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
