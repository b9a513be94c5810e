-- The highest journal id of each tenant that retention deleted (its age, row and byte limits:
-- docs/operations.md#retention; docs/schema.md#tables), kept across restarts: a count, find,
-- listing or wait whose range reaches entries retention deleted says so (`prunedThrough`)
-- after the server restarts too (until now it was kept in memory only, and a restart forgot it).
-- A journal clear or tenant drop deletes the tenant's row in its own transaction (the entries
-- after it start a new range). No foreign key, as for journal_deletions: a journal entry can
-- outlive its tenant's row for a moment (a request answered after its tenant's drop).
-- Not contract; not visible to /catbird/api/sql.
CREATE TABLE journal_pruned (
    tenant     TEXT PRIMARY KEY NOT NULL,
    through_id INTEGER NOT NULL
) WITHOUT ROWID;
