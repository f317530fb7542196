-- Up Migration
-- The releases of every project: queried per request, held by no process, so a release planted through one process
-- is listed by every other. Listed newest merged_at first (ties by id), in a status if asked. The fixtures' releases
-- are written by the next start (stores/postgres/fixtures.ts).
CREATE TABLE releases (
  project_id text NOT NULL,
  id text COLLATE "C" NOT NULL,
  doc jsonb NOT NULL,
  status text GENERATED ALWAYS AS (doc->>'status') STORED,
  merged_at text COLLATE "C" GENERATED ALWAYS AS (doc->>'merged_at') STORED,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX releases_merged ON releases (project_id, merged_at DESC, id DESC);

-- Down Migration
DROP TABLE releases;
