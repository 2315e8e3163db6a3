-- An event was stored once by a unique B-tree key (tenant_id, occurred_at,
-- id): an entry per event, about 100 bytes of WAL and 65 of index. The
-- flusher now keeps instead, per tenant, the newest stream version of the
-- events it stored, moved on in each batch's own transaction under that
-- row's lock (which puts a tenant's batches of events one after another).
-- A batch whose events are all newer is copied in plainly; any other looks
-- each event up first (pipeline/flush-batch.ts). The row keeps the oldest
-- event time too: a tenant's first day, which no index by time answers now.
CREATE TABLE flush_marks (
  tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  ver bigint,
  first_at timestamptz
);
-- Versions of events stored before are not known: a tenant's first batch looks its events up.
INSERT INTO flush_marks (tenant_id, first_at)
  SELECT t.id, (SELECT min(occurred_at) FROM events e WHERE e.tenant_id = t.id) FROM tenants t;

-- The reads by time (the daily rollups, analytics of open days) find a
-- window through a BRIN summary, as the other history tables do
-- (migrations/029), and skip other tenants' rows of that window.
DROP INDEX events_once;
CREATE INDEX events_by_time ON events USING brin (occurred_at) WITH (autosummarize = on);
