-- Up Migration
-- The studies of every project: queried per request, held by no process. The active ones are listed newest first.
CREATE TABLE studies (
  project_id text NOT NULL,
  id text COLLATE "C" NOT NULL,
  doc jsonb NOT NULL,
  status text GENERATED ALWAYS AS (doc->>'status') STORED,
  created_at text COLLATE "C" GENERATED ALWAYS AS (doc->>'created_at') STORED,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX studies_active ON studies (project_id, created_at DESC, id DESC) WHERE status = 'active';

-- The customer-visible chats and messages of every project (hidden ones are never written): queried per request, held
-- by no process. A chat never changes once planted, so its count of visible messages is written with it.
CREATE TABLE chats (
  project_id text NOT NULL,
  id text COLLATE "C" NOT NULL,
  doc jsonb NOT NULL,
  message_count integer NOT NULL,
  created_at text COLLATE "C" GENERATED ALWAYS AS (doc->>'created_at') STORED,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX chats_newest ON chats (project_id, created_at DESC, id DESC);
CREATE TABLE messages (
  project_id text NOT NULL,
  chat_id text NOT NULL,
  id text COLLATE "C" NOT NULL,
  doc jsonb NOT NULL,
  created_at text COLLATE "C" GENERATED ALWAYS AS (doc->>'created_at') STORED,
  PRIMARY KEY (project_id, chat_id, id)
);
CREATE INDEX messages_oldest ON messages (project_id, chat_id, created_at, id);

-- The participant prompt events each project received, by the client's event id (a retry is a duplicate).
CREATE TABLE prompt_events (
  project_id text NOT NULL,
  event_id text NOT NULL,
  phase text NOT NULL,
  received_at text NOT NULL,
  PRIMARY KEY (project_id, event_id)
);

-- The interviews of every project live here, queried per request: no process keeps a copy of them. `doc` is the
-- interview as the API knows it; the columns lists filter and order by are derived from it, in the "C" collation so
-- they sort as the API's own comparison of strings does. Each list's order and filters have a keyset index, so a page
-- costs O(page) at any number of rows.
CREATE TABLE interviews (
  project_id text NOT NULL,
  id text COLLATE "C" NOT NULL,
  doc jsonb NOT NULL,
  -- The respondent left: the interview stays where it was and never moves again.
  abandoned boolean NOT NULL DEFAULT false,
  study_id text GENERATED ALWAYS AS (doc->>'study_id') STORED,
  status text GENERATED ALWAYS AS (doc->>'status') STORED,
  quality_score text GENERATED ALWAYS AS (doc->>'quality_score') STORED,
  reference_id text GENERATED ALWAYS AS (doc->>'reference_id') STORED,
  created_at text COLLATE "C" GENERATED ALWAYS AS (doc->>'created_at') STORED,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX interviews_newest ON interviews (project_id, created_at DESC, id DESC);
CREATE INDEX interviews_by_study ON interviews (project_id, study_id, created_at DESC, id DESC);
CREATE INDEX interviews_by_status ON interviews (project_id, status, created_at DESC, id DESC);
CREATE INDEX interviews_by_reference ON interviews (project_id, reference_id, created_at DESC, id DESC);
CREATE INDEX interviews_by_quality ON interviews (project_id, quality_score, created_at DESC, id DESC);
CREATE INDEX interviews_by_study_status ON interviews (project_id, study_id, status, quality_score, created_at DESC, id DESC);
CREATE INDEX interviews_by_status_quality ON interviews (project_id, status, quality_score, created_at DESC, id DESC);

-- Interviews per study, status and quality, kept by the row's own statements (a trigger in the same transaction), so
-- the experiments report and a study's interview_count never count a million rows.
CREATE TABLE interview_counts (
  project_id text NOT NULL,
  study_id text NOT NULL,
  status text NOT NULL,
  quality_score text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (project_id, study_id, status, quality_score)
);
CREATE FUNCTION count_interviews() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE interview_counts SET n = n - 1
    WHERE project_id = OLD.project_id AND study_id = OLD.study_id AND status = OLD.status AND quality_score = COALESCE(OLD.quality_score, '');
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO interview_counts (project_id, study_id, status, quality_score, n)
    VALUES (NEW.project_id, NEW.study_id, NEW.status, COALESCE(NEW.quality_score, ''), 1)
    ON CONFLICT (project_id, study_id, status, quality_score) DO UPDATE SET n = interview_counts.n + 1;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER interviews_counted AFTER INSERT OR DELETE ON interviews FOR EACH ROW EXECUTE FUNCTION count_interviews();
CREATE TRIGGER interviews_recounted AFTER UPDATE ON interviews FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.quality_score IS DISTINCT FROM NEW.quality_score OR OLD.study_id IS DISTINCT FROM NEW.study_id)
  EXECUTE FUNCTION count_interviews();

-- Planted items (studies, interviews, chats and messages) per tenant: taken by one conditional statement in the change
-- that plants them, so two processes never both take the last unit of a quota. Counted here from what the log holds.
CREATE TABLE planted (tenant text PRIMARY KEY, n bigint NOT NULL CHECK (n >= 0));
WITH o AS (SELECT op::jsonb AS o FROM ops),
     tenants AS (SELECT o->'project'->>'id' AS project_id, o->'project'->>'tenant' AS tenant FROM o WHERE o->>'kind' = 'project.created'),
     items AS (
       SELECT o->'study'->>'project_id' AS project_id, 1 AS n FROM o WHERE o->>'kind' = 'study.planted'
       UNION ALL SELECT o->'interview'->>'project_id', 1 FROM o WHERE o->>'kind' = 'interview.created'
       UNION ALL SELECT o->'chat'->>'project_id', 1 + jsonb_array_length(o->'messages') FROM o WHERE o->>'kind' = 'chat.planted'
     )
INSERT INTO planted (tenant, n)
SELECT COALESCE(t.tenant, i.project_id), SUM(i.n) FROM items i LEFT JOIN tenants t ON t.project_id = i.project_id
GROUP BY COALESCE(t.tenant, i.project_id);
-- The log's study, interview, chat and prompt event changes move into the tables at the next start (stores/postgres/fixtures.ts),
-- once the fixtures' interviews they may change are there.

-- Down Migration
DROP TABLE planted;
DROP TRIGGER interviews_recounted ON interviews;
DROP TRIGGER interviews_counted ON interviews;
DROP FUNCTION count_interviews();
DROP TABLE interview_counts;
DROP TABLE interviews;
DROP TABLE studies;
DROP TABLE prompt_events;
DROP TABLE messages;
DROP TABLE chats;
