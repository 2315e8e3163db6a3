  -- Retention settings (control ratio, notification defaults, email-due
  -- webhooks; see src/domain/retention.ts), one row per tenant, whole.
  CREATE TABLE retention_settings (
    tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
    settings jsonb NOT NULL,
    updated timestamptz NOT NULL
  );
