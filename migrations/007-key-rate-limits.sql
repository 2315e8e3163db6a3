  -- A key's own rate limit (requests per second, 0: unlimited; burst: at once).
  -- NULL: the deployment default (RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST).
  ALTER TABLE api_keys
    ADD COLUMN rate_limit double precision CHECK (rate_limit >= 0),
    ADD COLUMN rate_burst integer CHECK (rate_burst >= 1);
