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
