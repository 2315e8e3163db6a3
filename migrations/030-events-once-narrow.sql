-- events_once stores an event once; its INCLUDE columns (metric, user,
-- value: about 40 bytes an entry, logged with every event) only let the
-- daily rollups and the analytics of open days scan it without the table.
-- They read a window of time, and the rows of a window lie together in
-- the table (appended in time order), so the table is read instead.
DROP INDEX events_once;
CREATE UNIQUE INDEX events_once ON events (tenant_id, occurred_at, id);
