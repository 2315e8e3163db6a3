  -- Users who never sent a zone are in their tenant's default zone
  -- (retention settings' defaultTimeZone; America/New_York unless set, as in
  -- Trophy). Tenants from before keep the UTC they had. Only an upgrade has
  -- migrations applied by an earlier run: a database created by this run
  -- holds just its default tenant, new, which takes the new default.
  INSERT INTO retention_settings (tenant_id, settings, updated)
    SELECT id, '{"defaultTimeZone": "UTC"}', now() FROM tenants WHERE (SELECT min(applied_at) FROM laurel_migrations) < now()
    ON CONFLICT (tenant_id) DO UPDATE SET settings = retention_settings.settings || '{"defaultTimeZone": "UTC"}'::jsonb;
  UPDATE tenants SET config_version = config_version + 1 WHERE (SELECT min(applied_at) FROM laurel_migrations) < now();
