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
