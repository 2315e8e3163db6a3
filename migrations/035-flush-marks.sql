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
-- Every event stored so far must lie at or below its tenant's mark: the
-- newest version stored, and no lower than the stream versions of now (ten
-- minutes on, for a Redis clock a little ahead) for events stored before
-- they had a version (migrations/031). Records still in a stream then are
-- looked up when they come; those made afterwards are copied in plainly.
INSERT INTO flush_marks (tenant_id, ver, first_at)
  SELECT t.id,
         CASE WHEN e.tenant_id IS NOT NULL THEN greatest(e.ver, (extract(epoch FROM now() + interval '10 minutes') * 1000)::bigint * 1000000) END,
         e.first_at
  FROM tenants t LEFT JOIN (SELECT tenant_id, max(ver) AS ver, min(occurred_at) AS first_at FROM events GROUP BY 1) e ON e.tenant_id = t.id;

-- The reads by time (the daily rollups, analytics of open days) find a
-- window through a BRIN summary, as the other history tables do
-- (migrations/029), and skip other tenants' rows of that window.
DROP INDEX events_once;
CREATE INDEX events_by_time ON events USING brin (occurred_at) WITH (autosummarize = on);
