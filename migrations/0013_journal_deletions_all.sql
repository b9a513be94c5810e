-- Every tenant's journal rows being deleted in the background after a drop of every tenant
-- (`DELETE /catbird/api/tenants?all=true`; docs/schema.md#tables): at most one row, the
-- journal's highest id when every tenant was dropped. Every read hides the rows up to it, whatever
-- their tenant, and a background task deletes them in small chunks by id, then this row. One
-- row instead of one `journal_deletions` row per tenant: dropping 64,000 tenants wrote 64,000
-- rows (and read each tenant's highest id) before it answered, 3.9 s.
-- Not contract; not visible to /catbird/api/sql.
CREATE TABLE journal_deletions_all (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    through_id INTEGER NOT NULL
);
