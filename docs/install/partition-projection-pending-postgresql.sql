-- Converts projection_pending, as the changelog created it, into a table partitioned by list of projection
-- (docs/install.md, "Partitioning the queue on PostgreSQL"). Run it in one transaction, with every instance stopped
-- (or undeployed) and after the changelog has run; later change sets apply to the partitioned table as they are.
-- The engine addresses a row by (tableoid, ctid), so acks and claims stay within the row's partition.
-- Index and constraint names must stay as they are: projection.schema=validate compares them.
-- With projection.table-schema set, begin the transaction with SET LOCAL search_path TO <that schema>; (it ends with
-- the transaction): the statements below name the tables unqualified, and the indexes follow their table's schema.

ALTER TABLE projection_pending RENAME TO projection_pending_unpartitioned;
ALTER TABLE projection_pending_unpartitioned RENAME CONSTRAINT projection_pending_pk TO projection_pending_unpartitioned_pk;
ALTER INDEX projection_pending_claim_idx RENAME TO projection_pending_unpartitioned_claim_idx;
ALTER INDEX projection_pending_due_idx RENAME TO projection_pending_unpartitioned_due_idx;
ALTER INDEX projection_pending_entity_idx RENAME TO projection_pending_unpartitioned_entity_idx;
ALTER INDEX projection_pending_failing_idx RENAME TO projection_pending_unpartitioned_failing_idx;
ALTER INDEX projection_pending_parked_idx RENAME TO projection_pending_unpartitioned_parked_idx;
ALTER INDEX projection_pending_rebuild_idx RENAME TO projection_pending_unpartitioned_rebuild_idx;
ALTER INDEX projection_pending_tenant_due_idx RENAME TO projection_pending_unpartitioned_tenant_due_idx;

CREATE TABLE projection_pending (LIKE projection_pending_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY LIST (projection);
ALTER TABLE projection_pending ADD CONSTRAINT projection_pending_pk PRIMARY KEY (projection, tenant_id, entity_id);
CREATE INDEX projection_pending_claim_idx ON projection_pending (projection, priority, available_at);
CREATE INDEX projection_pending_due_idx ON projection_pending (projection, available_at, tenant_id, entity_id);
CREATE INDEX projection_pending_entity_idx ON projection_pending (entity_id);
CREATE INDEX projection_pending_failing_idx ON projection_pending (projection, available_at, tenant_id, entity_id) WHERE attempts > 0;
CREATE INDEX projection_pending_parked_idx ON projection_pending (projection, available_at, tenant_id, entity_id) WHERE parked_at IS NOT NULL;
CREATE INDEX projection_pending_rebuild_idx ON projection_pending (projection, tenant_id) WHERE priority = 1;
CREATE INDEX projection_pending_tenant_due_idx ON projection_pending (projection, tenant_id, available_at, entity_id);

-- Every projection without a partition of its own; fillfactor as the changelog gives the plain table (room for HOT
-- updates of claims and re-marks). A partitioned table has no storage of its own, so each partition gets it.
CREATE TABLE projection_pending_default PARTITION OF projection_pending DEFAULT WITH (fillfactor = 80);
-- One partition per busy projection, for example:
-- CREATE TABLE projection_pending_order_search PARTITION OF projection_pending FOR VALUES IN ('order-search')
--     WITH (fillfactor = 80);

INSERT INTO projection_pending SELECT * FROM projection_pending_unpartitioned;
DROP TABLE projection_pending_unpartitioned;
