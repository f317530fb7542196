-- Up Migration
-- Changes of different tenants commit concurrently (each tenant's under its own lock), so change numbers no longer
-- commit in order: a process catches up by transaction id instead. Every id below pg_snapshot_xmin is finished, so a
-- process reads the changes of transactions from its last horizon on and skips those it has already applied.
ALTER TABLE ops ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE stream ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX ops_by_xid ON ops (xid);
CREATE INDEX stream_by_xid ON stream (xid);

-- Down Migration
DROP INDEX stream_by_xid;
DROP INDEX ops_by_xid;
ALTER TABLE stream DROP COLUMN xid;
ALTER TABLE ops DROP COLUMN xid;
