  -- The key that seals stored credentials when SECRETS_KEY is unset
  -- (store/secrets.ts): generated once, shared by every process.
  CREATE TABLE secret_key (id integer PRIMARY KEY CHECK (id = 1), key bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
