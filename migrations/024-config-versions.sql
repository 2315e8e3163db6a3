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
