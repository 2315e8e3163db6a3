-- A batch puts the groups it writes in front of user_state.recent instead
-- of rewriting it merged (store/user-state.ts): the column's old bytes stay
-- the tail of the new ones, so Postgres logs the new groups alone. recent
-- may then name a field in more than one group; the newest version wins.
CREATE OR REPLACE FUNCTION user_state_field(state text, recent text, field text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT v FROM (
    SELECT 1 AS o, (g->>0)::numeric AS ver, g->>(i + 1) AS v FROM jsonb_array_elements(recent::jsonb) AS g, generate_series(1, jsonb_array_length(g) - 1, 2) AS i
    WHERE g->>i = field
    UNION ALL
    SELECT 2, (g->>0)::numeric, g->>(i + 1) FROM jsonb_array_elements(state::jsonb) AS g, generate_series(1, jsonb_array_length(g) - 1, 2) AS i
    WHERE g->>i = field) x
  ORDER BY o, ver DESC LIMIT 1
$$;
