-- Up Migration
-- Each take of the planted quota writes the cap it was checked against, and the row's own constraint refuses a count
-- past it: the take needs no answer read before the change commits, so a change of rows only sends it with its
-- COMMIT, and the tenant's row is locked for one statement's time instead of a round trip to a busy process.
ALTER TABLE planted ADD COLUMN cap bigint;
ALTER TABLE planted ADD CONSTRAINT planted_within_cap CHECK (cap IS NULL OR n <= cap);

-- Down Migration
ALTER TABLE planted DROP CONSTRAINT planted_within_cap;
ALTER TABLE planted DROP COLUMN cap;
