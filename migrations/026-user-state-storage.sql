  -- A user's hash (about 1.2 KB of JSON) is rewritten by every batch
  -- touching the user: room is left on its page, so the rewrite mostly
  -- stays there (a HOT update: no new index entry, and the page's older
  -- versions are reclaimed as it fills, without a vacuum). A hash past
  -- Postgres's 2 KB threshold is compressed with lz4 and kept in its row.
  ALTER TABLE user_state ALTER COLUMN fields SET STORAGE MAIN, ALTER COLUMN fields SET COMPRESSION lz4;
  ALTER TABLE user_state SET (fillfactor = 70);
