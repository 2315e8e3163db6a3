-- An event's awards were an array of a composite type: about 130 bytes an
-- award, about 85 of them the system, trigger, trigger version and boosts, which
-- repeat across a tenant's awards (a tenant has a few triggers and boosts),
-- and 28 a composite's header. Those four now live once per tenant in
-- award_kinds, and the event's row keeps four integers an award in a
-- bigint[]: kind, place among the system's awards in the operation
-- (awardId derives from it), amount and the system's total after it.
-- About 32 bytes an award: 95 bytes less per event under the bench's load,
-- in the table and in the WAL.
CREATE TABLE award_kinds (
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  id bigint GENERATED ALWAYS AS IDENTITY,
  system_id uuid NOT NULL,
  trigger_id uuid NOT NULL,
  trigger_version uuid,
  -- The ids of the boosts that multiplied the award, comma-separated (null: none).
  boosts text,
  PRIMARY KEY (tenant_id, id),
  CONSTRAINT award_kinds_once UNIQUE NULLS NOT DISTINCT (tenant_id, system_id, trigger_id, trigger_version, boosts)
);

INSERT INTO award_kinds (tenant_id, system_id, trigger_id, trigger_version, boosts)
  SELECT DISTINCT e.tenant_id, a.s, a.t, a.v, a.b FROM events e CROSS JOIN LATERAL unnest(e.awards) AS a
  WHERE e.awards IS NOT NULL;

-- Points are whole numbers (lua/lib/20-points.lua rounds every award).
CREATE FUNCTION pg_temp.packed_awards(tenant uuid, aw award[]) RETURNS bigint[] LANGUAGE sql STABLE AS $$
  SELECT array_agg(y.n ORDER BY x.o, y.p)
  FROM unnest(aw) WITH ORDINALITY AS x(s, t, v, i, n, total, b, o)
  JOIN award_kinds k ON k.tenant_id = tenant AND k.system_id = x.s AND k.trigger_id = x.t
    AND k.trigger_version IS NOT DISTINCT FROM x.v AND k.boosts IS NOT DISTINCT FROM x.b
  CROSS JOIN LATERAL unnest(ARRAY[k.id, x.i, x.n::bigint, x.total::bigint]) WITH ORDINALITY AS y(n, p)
$$;

DROP VIEW awards;
ALTER TABLE events ALTER COLUMN awards TYPE bigint[] USING pg_temp.packed_awards(tenant_id, awards);
DROP FUNCTION pg_temp.packed_awards(uuid, award[]);
DROP TYPE award;

CREATE VIEW awards AS
  SELECT tenant_id, user_id, system_id, trigger_id, trigger_version, event_id, id, NULL::integer AS idx,
         awarded, total, at, local_date, boosts, ver, seq AS place
  FROM points_awards
  UNION ALL
  SELECT e.tenant_id, e.user_id, k.system_id, k.trigger_id, k.trigger_version, e.id, NULL::uuid, e.awards[j + 2]::integer,
         e.awards[j + 3]::numeric, e.awards[j + 4]::numeric, e.occurred_at, e.local_date,
         CASE WHEN k.boosts IS NULL THEN '[]'::jsonb ELSE to_jsonb(string_to_array(k.boosts, ',')) END, e.ver, (j / 4 + 1)::bigint
  FROM events e CROSS JOIN LATERAL generate_series(0, cardinality(e.awards) - 4, 4) AS j
  JOIN award_kinds k ON k.tenant_id = e.tenant_id AND k.id = e.awards[j + 1]
  WHERE e.awards IS NOT NULL;
