-- Up Migration
-- The simulated interviews' timers (started -> processing -> completed), one row per transition still to make: written
-- in the change that creates the interview, claimed when due with FOR UPDATE SKIP LOCKED and deleted in the change
-- that makes the transition, so one process makes each, and a crash (of a process or of the database) loses none.
CREATE TABLE timers (
  interview_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('processing', 'completed')),
  project_id text NOT NULL,
  due_ms bigint NOT NULL,
  PRIMARY KEY (interview_id, kind)
);
CREATE INDEX timers_due ON timers (due_ms);

-- Interviews created before this migration armed their timers in every process: their rows now. One already
-- completed or abandoned is found so when its row is claimed, and the row is dropped.
INSERT INTO timers (interview_id, kind, project_id, due_ms)
SELECT o->'interview'->>'id', 'processing', o->'interview'->>'project_id', COALESCE((o->>'processing_at')::bigint, (o->>'completes_at')::bigint)
FROM (SELECT op::jsonb AS o FROM ops) AS created
WHERE o->>'kind' = 'interview.created' AND o->>'completes_at' IS NOT NULL
ON CONFLICT DO NOTHING;
INSERT INTO timers (interview_id, kind, project_id, due_ms)
SELECT o->'interview'->>'id', 'completed', o->'interview'->>'project_id', (o->>'completes_at')::bigint
FROM (SELECT op::jsonb AS o FROM ops) AS created
WHERE o->>'kind' = 'interview.created' AND o->>'completes_at' IS NOT NULL
ON CONFLICT DO NOTHING;

-- Down Migration
DROP TABLE timers;
