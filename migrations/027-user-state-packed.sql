-- user_state as JSON text grouping a user's fields by the stream version
-- that wrote them, oldest first: [[version, field, value, ...], ...]
-- (store/user-state.ts). The version is written once per group, not once
-- per field, and no jsonb structure surrounds each value: a third of the
-- row, which every batch touching the user rewrites (and logs). The
-- flusher merges in Node under a per-tenant lock, so no version column.
-- Postgres logs a rewritten column whole when its length changes (the
-- length leads its bytes), so the fields later batches change go to a
-- column of their own after it, `recent` (the same encoding, newer than
-- state's fields), and `state` is rewritten only when recent is folded
-- into it: an update then logs what changed, not the whole hash.
-- A new table rather than an update in place: its rows hold no dropped columns.
CREATE TABLE user_state_packed (
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  user_id text NOT NULL,
  state text NOT NULL,
  recent text,
  PRIMARY KEY (tenant_id, user_id)
) WITH (fillfactor = 70);
INSERT INTO user_state_packed (tenant_id, user_id, state)
  SELECT s.tenant_id, s.user_id, coalesce((
    SELECT jsonb_agg(g.grp ORDER BY g.ver)::text FROM (
      SELECT x.ver, jsonb_build_array(x.ver::text) || jsonb_agg(p.e ORDER BY x.key, p.ord) AS grp
      FROM (SELECT f.key, (f.value->>1)::numeric AS ver, f.value->0 AS v FROM jsonb_each(s.fields) AS f) AS x,
        LATERAL (VALUES (1, to_jsonb(x.key)), (2, x.v)) AS p(ord, e)
      GROUP BY x.ver) AS g), '[]')
  FROM user_state s;
DROP TABLE user_state;
ALTER TABLE user_state_packed RENAME TO user_state;
ALTER TABLE user_state RENAME CONSTRAINT user_state_packed_pkey TO user_state_pkey;
ALTER TABLE user_state RENAME CONSTRAINT user_state_packed_tenant_id_fkey TO user_state_tenant_id_fkey;
-- One field's value (NULL when absent or deleted), recent's before state's, for reads in SQL (store/experiment.ts).
CREATE FUNCTION user_state_field(state text, recent text, field text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT v FROM (
    SELECT 1 AS o, g->>(i + 1) AS v FROM jsonb_array_elements(recent::jsonb) AS g, generate_series(1, jsonb_array_length(g) - 1, 2) AS i
    WHERE g->>i = field
    UNION ALL
    SELECT 2, g->>(i + 1) FROM jsonb_array_elements(state::jsonb) AS g, generate_series(1, jsonb_array_length(g) - 1, 2) AS i
    WHERE g->>i = field) x
  ORDER BY o LIMIT 1
$$;
