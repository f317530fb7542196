-- Up Migration
-- Whose turn it is at the next claim, kept across claims and processes: a claim hands its slots round the tenants
-- served longest ago first, and within a tenant round its projects served longest ago first (the fair queue's round
-- robin, webhooks/fair-queue.ts), then numbers the ones it served from `delivery_turns`. Without it each claim started
-- again from the oldest due attempt, so while the caps let one attempt out at a time a tenant with a backlog took every
-- slot before a tenant with one new event. A project's row is written under its tenant's row lock (the claim's).
ALTER TABLE delivery_tenants ADD COLUMN served bigint NOT NULL DEFAULT 0;
CREATE TABLE delivery_projects (project_id text PRIMARY KEY, served bigint NOT NULL DEFAULT 0);
CREATE SEQUENCE delivery_turns;

-- Down Migration
DROP SEQUENCE delivery_turns;
DROP TABLE delivery_projects;
ALTER TABLE delivery_tenants DROP COLUMN served;
