-- Journal rows being deleted in the background (docs/schema.md#tables): a journal clear or a
-- tenant drop records the tenant's highest id here and answers at once; every read hides the
-- tenant's rows up to through_id, and a background task deletes them in small chunks, then
-- this row. No foreign key: a dropped tenant's row is gone while its old journal rows remain.
-- Not contract; not visible to /catbird/api/sql.
CREATE TABLE journal_deletions (
    tenant     TEXT PRIMARY KEY NOT NULL,
    through_id INTEGER NOT NULL
) WITHOUT ROWID;
