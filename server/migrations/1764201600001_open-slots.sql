-- Up Migration
-- Things open at once (event streams, requests held by a delay), counted per tenant over every process: each process
-- keeps its own counts here and says it is alive; a process not seen for 15 s no longer counts (it was killed).
CREATE TABLE slot_holders (owner text PRIMARY KEY, seen_ms bigint NOT NULL);
CREATE TABLE open_slots (
  owner text NOT NULL, kind text NOT NULL, tenant text NOT NULL, n integer NOT NULL,
  PRIMARY KEY (owner, kind, tenant)
);
CREATE INDEX open_slots_by_tenant ON open_slots (kind, tenant);

-- Down Migration
DROP TABLE open_slots;
DROP TABLE slot_holders;
