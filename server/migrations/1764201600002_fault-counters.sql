-- Up Migration
-- The fault counters of `PUT /_sim/faults` (fail_next, webhook_failures), one row per project: set in the change that
-- sets the faults, consumed by one UPDATE ... WHERE n > 0 RETURNING, so each is used exactly once whichever process
-- answers, and a consumption never writes the settings back over a newer PUT.
CREATE TABLE fault_counters (
  project_id text PRIMARY KEY,
  fail_next integer NOT NULL CHECK (fail_next >= 0),
  webhook_failures integer NOT NULL CHECK (webhook_failures >= 0)
);

-- Down Migration
DROP TABLE fault_counters;
