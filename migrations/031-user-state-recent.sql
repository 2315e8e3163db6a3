-- A user's row is rewritten by nearly every batch, and Postgres logs a
-- rewritten column whole when its length changes (the length leads its
-- bytes): about 600 bytes an event for the whole hash. So the fields the
-- batches change go to a column of their own after it, `recent` (the same
-- encoding, newer than `state`'s fields), and `state` is rewritten only
-- when recent is folded into it (store/user-state.ts).
ALTER TABLE user_state ADD COLUMN recent text;
-- One field's value (NULL when absent or deleted): recent's, else state's.
DROP FUNCTION user_state_field(text, text);
CREATE FUNCTION user_state_field(state text, recent text, field text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT v FROM (
    SELECT 1 AS o, g->>(i + 1) AS v FROM jsonb_array_elements(recent::jsonb) AS g, generate_series(1, jsonb_array_length(g) - 1, 2) AS i
    WHERE g->>i = field
    UNION ALL
    SELECT 2, g->>(i + 1) FROM jsonb_array_elements(state::jsonb) AS g, generate_series(1, jsonb_array_length(g) - 1, 2) AS i
    WHERE g->>i = field) x
  ORDER BY o LIMIT 1
$$;
