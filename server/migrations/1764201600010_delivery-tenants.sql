-- Up Migration
-- A row per tenant with deliveries: a claim locks the rows of the tenants it claims for (`FOR UPDATE SKIP LOCKED`),
-- so each tenant's attempts are claimed by one process at a time and its caps count every process's attempts on the
-- wire, while other tenants are claimed by other processes at the same time. It replaces one advisory lock over every
-- tenant. A claim adds the row of a tenant it has not seen.
CREATE TABLE delivery_tenants (tenant text PRIMARY KEY);
INSERT INTO delivery_tenants (tenant) SELECT DISTINCT tenant FROM attempts;

-- Down Migration
DROP TABLE delivery_tenants;
