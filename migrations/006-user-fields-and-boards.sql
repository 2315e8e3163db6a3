  -- The last value of every field of every user hash in Redis (NULL: deleted),
  -- versioned by the change stream's entry id so a late batch never wins.
  CREATE TABLE user_fields (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    field text NOT NULL,
    value text,
    ver numeric NOT NULL,
    PRIMARY KEY (tenant_id, user_id, field)
  );

  -- Live leaderboard membership with exact scores (NULL: left the board).
  CREATE TABLE board_entries (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    leaderboard_id uuid NOT NULL,
    run integer NOT NULL,
    grp text NOT NULL,
    user_id text NOT NULL,
    score double precision,
    ver numeric NOT NULL,
    PRIMARY KEY (tenant_id, leaderboard_id, run, grp, user_id)
  );
