-- Up Migration
-- What was left of the state every process held and kept in step through the change log: projects created through
-- the simulation surface, each project's webhook, its listener secret and the forwards its listeners reported. Each is
-- a table now, read per request; the log's changes of them are moved in by the first start (stores/postgres/fixtures.ts),
-- after which nothing writes the log.

-- Projects created through `POST /_sim/projects` (the fixtures' own are the contract's, in every process). Keys are
-- kept as their SHA-256 only: a key is shown once, when the project is created, and found again by its digest.
CREATE TABLE projects (
  id text PRIMARY KEY,
  name text NOT NULL,
  tenant text NOT NULL,
  api_key_sha256 bytea NOT NULL UNIQUE,
  public_key_sha256 bytea NOT NULL UNIQUE,
  created_at text NOT NULL
);
-- Projects each organisation created: the quota's row, refused past its cap by its own constraint.
CREATE TABLE tenant_projects (
  tenant text PRIMARY KEY,
  n bigint NOT NULL,
  cap bigint NOT NULL,
  CONSTRAINT tenant_projects_within_cap CHECK (n <= cap)
);

-- A project's one webhook. A deleted one keeps its row (url NULL), so `version` goes on counting every change: an
-- attempt made for an older version can tell its setting was replaced. A change locks the row, so two processes
-- changing one project's webhook take turns, and other projects never wait.
CREATE TABLE webhooks (
  project_id text PRIMARY KEY,
  url text,
  events jsonb,
  secret text,
  version integer NOT NULL
);

-- What `api-sandbox listen` signs its forwards with, made on first use.
CREATE TABLE listener_secrets (project_id text PRIMARY KEY, secret text NOT NULL);

-- Forwards listeners reported, the last 1,000 of each project (oldest dropped as new ones come).
CREATE TABLE forwards (
  project_id text NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  id text NOT NULL,
  doc jsonb NOT NULL,
  PRIMARY KEY (project_id, seq)
);
CREATE UNIQUE INDEX forwards_by_id ON forwards (project_id, id);

-- Down Migration
DROP TABLE forwards;
DROP TABLE listener_secrets;
DROP TABLE webhooks;
DROP TABLE tenant_projects;
DROP TABLE projects;
