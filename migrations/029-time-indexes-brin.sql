-- The time indexes of the history tables cost a B-tree entry per row (about
-- 110 bytes of WAL each) for reads made once a day or by an admin: the
-- daily rollups and the analytics of open days (points_awards by time),
-- achievement analytics (completions by time), streak analytics and
-- rankings (periods by frequency and period). The rows are appended in
-- time order, so a BRIN index (one summary per 128 pages, nothing logged
-- for a row appended past the summarized ranges) finds a time window as
-- well; achievement analytics read the completions of each achievement,
-- all of them, so the primary key carries the time and serves them alone.
DROP INDEX points_awards_by_time;
CREATE INDEX points_awards_by_time ON points_awards USING brin (at) WITH (autosummarize = on);

DROP INDEX achievement_completions_by_time;
ALTER TABLE achievement_completions DROP CONSTRAINT achievement_completions_pkey,
  ADD CONSTRAINT achievement_completions_pkey PRIMARY KEY (tenant_id, achievement_id, user_id) INCLUDE (achieved_at);

-- Tenants count periods in days, weeks or months, so a block range holds
-- a few clusters of values: minmax-multi keeps each cluster apart.
DROP INDEX streak_periods_by_period;
CREATE INDEX streak_periods_by_period ON streak_periods USING brin (period int4_minmax_multi_ops) WITH (autosummarize = on);
