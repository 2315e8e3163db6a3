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
