-- Up Migration
-- The planted-data quota in four rows per tenant instead of one: a take adds to one row chosen at random once the
-- committed sum (and what its own transaction added) leaves room, so a tenant's plants on several connections no
-- longer queue behind one row lock. The quota is a cap against abuse: takes in flight at once each see the others'
-- units only once committed, so the count may pass the cap by what they add (the README says so). The seed's caps (a
-- study's) stay exact on the study's row. `planted_take` refuses past the cap with SQLSTATE SB001, the count in its
-- detail: a statement whose answer the change does not need, so it is sent with the change's COMMIT.
CREATE TABLE planted_shards (
  tenant text NOT NULL,
  shard smallint NOT NULL,
  n bigint NOT NULL CHECK (n >= 0),
  PRIMARY KEY (tenant, shard)
);
INSERT INTO planted_shards (tenant, shard, n) SELECT tenant, 0, n FROM planted;
DROP TABLE planted;
CREATE FUNCTION planted_take(t text, s smallint, k bigint, cap bigint) RETURNS void
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  total bigint;
BEGIN
  SELECT coalesce(sum(n), 0) INTO total FROM planted_shards WHERE tenant = t;
  IF total + k > cap THEN
    RAISE EXCEPTION 'planted quota: % of %', total, cap USING ERRCODE = 'SB001', DETAIL = total::text;
  END IF;
  INSERT INTO planted_shards (tenant, shard, n) VALUES (t, s, k) ON CONFLICT (tenant, shard) DO UPDATE SET n = planted_shards.n + excluded.n;
END $$;

-- Down Migration
DROP FUNCTION planted_take(text, smallint, bigint, bigint);
CREATE TABLE planted (tenant text PRIMARY KEY, n bigint NOT NULL CHECK (n >= 0), cap bigint);
ALTER TABLE planted ADD CONSTRAINT planted_within_cap CHECK (cap IS NULL OR n <= cap);
INSERT INTO planted (tenant, n) SELECT tenant, sum(n) FROM planted_shards GROUP BY tenant;
DROP TABLE planted_shards;
