-- Up Migration
-- The sandbox's state shared by several processes (server/src/persist/postgres.ts). Every change to the store, and
-- every event of the delivery stream, takes its number from change_seq under one advisory lock, so numbers are
-- committed in order and a process catches up by reading what is past the last number it applied.
CREATE SEQUENCE change_seq;
CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE ops (seq bigint PRIMARY KEY, op text NOT NULL);
CREATE TABLE stream (seq bigint PRIMARY KEY, project_id text NOT NULL, n integer NOT NULL, event text NOT NULL);
CREATE INDEX stream_by_project ON stream (project_id, n);
-- Webhook events with their exact bytes (kept per tenant, oldest dropped first).
CREATE TABLE events (
  id text PRIMARY KEY, ord bigserial NOT NULL, tenant text NOT NULL, project_id text NOT NULL, interview_id text NOT NULL,
  url text NOT NULL, secret text NOT NULL, version integer NOT NULL, body text NOT NULL, headers text NOT NULL
);
CREATE INDEX events_by_tenant ON events (tenant, ord);
-- Every delivery attempt: the deliveries list, and the queue each process claims from (FOR UPDATE SKIP LOCKED).
CREATE TABLE attempts (
  id text PRIMARY KEY, ord bigserial NOT NULL, tenant text NOT NULL, project_id text NOT NULL, event_id text NOT NULL,
  interview_id text NOT NULL, attempt integer NOT NULL, trigger text NOT NULL, url text NOT NULL, status text NOT NULL,
  response_status integer, error text, scheduled_ms bigint NOT NULL, sent_ms bigint, finished_ms bigint,
  lease_ms bigint, owner text
);
CREATE INDEX attempts_due ON attempts (scheduled_ms) WHERE status = 'pending';
CREATE INDEX attempts_on_the_wire ON attempts (tenant, project_id) WHERE status = 'in_flight';
CREATE INDEX attempts_by_project ON attempts (project_id, scheduled_ms, id);
CREATE INDEX attempts_by_event ON attempts (event_id);

-- Down Migration
DROP TABLE attempts;
DROP TABLE events;
DROP TABLE stream;
DROP TABLE ops;
DROP TABLE meta;
DROP SEQUENCE change_seq;
