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
