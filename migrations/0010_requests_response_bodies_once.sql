-- 0010: a response body that repeats is stored once. Rules and columns: docs/schema.md.

-- A tenant's repeated answers (one mock's body, the 404 of an app polling an unmocked url, or
-- of urls that differ only in themselves) each wrote their whole body into every journal row:
-- a 404 with its near misses is about 1.2 KB against a hit's few bytes, and those bytes (the
-- row, the WAL frame, the checkpoint's copy) were most of what a miss row cost the writer.
-- The rows move to journal_rows (the former requests table, renamed in place: no row is
-- rewritten, ids and AUTOINCREMENT carry on), which may point at a body in journal_bodies
-- instead of holding it. `requests` becomes a view with the same columns, in the same order,
-- and the same values as the table had; rows written before this migration read as before.
ALTER TABLE requests RENAME TO journal_rows;

-- The body of a row that points at journal_bodies (response_body is then NULL); NULL for a
-- row that holds its own body (or has none). Not contract.
ALTER TABLE journal_rows ADD COLUMN response_body_id INTEGER;

-- A stored body and how many journal_rows point at it. url_marked = 1: each 0x01 byte of body
-- stands for the row's url (a body written by Catbird itself, valid JSON or text, has no raw
-- 0x01 byte, so the bytes come back exactly). AUTOINCREMENT: an id is never reused, so the
-- writer can tell a body deleted since it last used it. Not contract; not visible to
-- /catbird/api/sql.
CREATE TABLE journal_bodies (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    body       BLOB NOT NULL,
    url_marked INTEGER NOT NULL,
    refs       INTEGER NOT NULL
);

-- Whatever deletes rows (journal clear and tenant drop in chunks, retention, the tenant's
-- ON DELETE CASCADE) releases their bodies; the last row's release deletes the body.
CREATE TRIGGER journal_rows_release_body AFTER DELETE ON journal_rows
WHEN OLD.response_body_id IS NOT NULL BEGIN
    UPDATE journal_bodies SET refs = refs - 1 WHERE id = OLD.response_body_id;
    DELETE FROM journal_bodies WHERE id = OLD.response_body_id AND refs <= 0;
END;

-- What users read: every column of the former table, in its order (near_misses as migration
-- 0008 computes it, from the body as read here). An unused body is never joined: SQLite leaves
-- out a LEFT JOIN on a primary key whose columns a query does not read.
CREATE VIEW requests AS
SELECT r.id, r.time, r.tenant, r.method, r.url, r.request_headers, r.request_body, r.request_body_size,
    r.request_body_truncated, r.status, r.response_headers,
    CASE WHEN r.response_body_id IS NULL THEN r.response_body
         WHEN b.url_marked = 0 THEN b.body
         ELSE CAST(replace(b.body, char(1), r.url) AS BLOB) END AS response_body,
    r.response_body_size, r.response_body_truncated, r.answered_by, r.mock_id, r.duration_ms, r.file_path,
    r.near_misses_copy, r.problem, r.near_misses_offset, r.near_misses_length,
    CASE WHEN r.near_misses_offset IS NULL THEN r.near_misses_copy
         WHEN r.response_body_id IS NULL THEN CAST(substr(r.response_body, r.near_misses_offset, r.near_misses_length) AS TEXT)
         WHEN b.url_marked = 0 THEN CAST(substr(b.body, r.near_misses_offset, r.near_misses_length) AS TEXT)
         ELSE CAST(substr(CAST(replace(b.body, char(1), r.url) AS BLOB), r.near_misses_offset, r.near_misses_length) AS TEXT)
    END AS near_misses
FROM journal_rows r LEFT JOIN journal_bodies b ON b.id = r.response_body_id;
