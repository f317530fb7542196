-- Up Migration
-- A project's whole fault settings (`PUT /_sim/faults`) as one row, read by every request whichever process answers
-- it, so no process holds them and none needs to catch up with another's PUT. `version` counts the PUTs (a process
-- restarts its seeded draws when it changes); the counters are consumed by one UPDATE ... WHERE n > 0 RETURNING.
CREATE TABLE fault_settings (
  project_id text PRIMARY KEY,
  settings jsonb NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  fail_next integer NOT NULL CHECK (fail_next >= 0),
  webhook_failures integer NOT NULL CHECK (webhook_failures >= 0)
);
-- Settings an older version kept in the change log (the last of each project), with its counters as they were left.
WITH last AS (
  SELECT DISTINCT ON (op::jsonb->>'project_id') op::jsonb->>'project_id' AS project_id, op::jsonb->'settings' AS settings
  FROM ops WHERE op::jsonb->>'kind' = 'faults.set' ORDER BY op::jsonb->>'project_id', seq DESC
)
INSERT INTO fault_settings (project_id, settings, fail_next, webhook_failures)
SELECT l.project_id, l.settings, COALESCE(c.fail_next, (l.settings->>'fail_next')::int), COALESCE(c.webhook_failures, (l.settings->>'webhook_failures')::int)
FROM last l LEFT JOIN fault_counters c ON c.project_id = l.project_id
WHERE jsonb_typeof(l.settings) = 'object';
DELETE FROM ops WHERE op::jsonb->>'kind' = 'faults.set';
DROP TABLE fault_counters;

-- Down Migration
CREATE TABLE fault_counters (
  project_id text PRIMARY KEY,
  fail_next integer NOT NULL CHECK (fail_next >= 0),
  webhook_failures integer NOT NULL CHECK (webhook_failures >= 0)
);
INSERT INTO fault_counters SELECT project_id, fail_next, webhook_failures FROM fault_settings;
INSERT INTO ops (seq, op) SELECT nextval('change_seq'), jsonb_build_object('kind', 'faults.set', 'project_id', project_id, 'settings', settings)::text FROM fault_settings;
DROP TABLE fault_settings;
