-- 0014: a large mock response body is written in pieces. Rules and columns: docs/schema.md.

-- A mock with a 30 MiB body wrote it in the one transaction that added the mock, holding
-- SQLite's single write lock for 0.4-1 s: every other tenant's mock change, and the journal
-- writer (so counts too), waited for it (tester finding tester22b-F7). A body longer than one
-- piece is now written into mock_body_pieces first, one piece per transaction, and the mock's
-- row, which only points at them, is committed last, so no mock is ever seen with part of its
-- body. The rows move to mock_rows (the former mocks table, renamed in place: no row is
-- rewritten, ids and AUTOINCREMENT carry on); `mocks` becomes a view with the same columns, in
-- the same order, and the same values as the table had, and rows written to it (by hand with
-- sqlite3, docs/schema.md#editing-mocks-rows) go to mock_rows.
ALTER TABLE mocks RENAME TO mock_rows;

-- The body's pieces (mock_body_pieces.body_id) when the row does not hold it itself
-- (response_body is then NULL); NULL for a row that holds its own body or has none. Not contract.
ALTER TABLE mock_rows ADD COLUMN response_body_id INTEGER;

-- Which bodies are still in use, for the sweep of unused pieces (docs/schema.md).
CREATE INDEX mock_rows_by_body ON mock_rows (response_body_id) WHERE response_body_id IS NOT NULL;

-- One piece of a body: its bytes at offset piece × the piece size the server wrote it with.
-- A body's pieces in ascending `piece` are the body. Pieces no row points at (a write cut
-- short, a mock removed or replaced) are deleted by the server, a piece per transaction, while
-- it runs and at start-up. Not contract; not visible to /catbird/api/sql.
CREATE TABLE mock_body_pieces (
    body_id INTEGER NOT NULL,
    piece   INTEGER NOT NULL,
    bytes   BLOB NOT NULL,
    PRIMARY KEY (body_id, piece)
);

-- What users read: every column of the former table, in its order; a body in pieces read whole.
CREATE VIEW mocks AS
SELECT m.id, m.tenant, m.position, m.method, m.url_kind, m.url_value, m.header_patterns, m.status,
    m.response_headers,
    CASE WHEN m.response_body_id IS NULL THEN m.response_body
         ELSE (SELECT CAST(group_concat(p.bytes, '') AS BLOB)
               FROM (SELECT bytes FROM mock_body_pieces WHERE body_id = m.response_body_id ORDER BY piece) p)
    END AS response_body,
    m.remaining_limit, m.delay_seconds, m.hits, m.created_at, m.body_pattern
FROM mock_rows m;

-- Rows written to the view, as the table took them (its defaults for header_patterns,
-- response_headers and hits).
CREATE TRIGGER mocks_insert INSTEAD OF INSERT ON mocks BEGIN
    INSERT INTO mock_rows (id, tenant, position, method, url_kind, url_value, header_patterns, status,
                           response_headers, response_body, remaining_limit, delay_seconds, hits, created_at,
                           body_pattern)
    VALUES (NEW.id, NEW.tenant, NEW.position, NEW.method, NEW.url_kind, NEW.url_value,
            coalesce(NEW.header_patterns, '{}'), NEW.status, coalesce(NEW.response_headers, '{}'), NEW.response_body,
            NEW.remaining_limit, NEW.delay_seconds, coalesce(NEW.hits, 0), NEW.created_at, NEW.body_pattern);
END;

-- A body set by hand is held by the row itself; a body in pieces left as it was stays there.
CREATE TRIGGER mocks_update INSTEAD OF UPDATE ON mocks BEGIN
    UPDATE mock_rows SET id = NEW.id, tenant = NEW.tenant, position = NEW.position, method = NEW.method,
        url_kind = NEW.url_kind, url_value = NEW.url_value, header_patterns = NEW.header_patterns,
        status = NEW.status, response_headers = NEW.response_headers,
        response_body = CASE WHEN response_body_id IS NOT NULL AND NEW.response_body IS OLD.response_body THEN NULL
                             ELSE NEW.response_body END,
        response_body_id = CASE WHEN NEW.response_body IS OLD.response_body THEN response_body_id ELSE NULL END,
        remaining_limit = NEW.remaining_limit, delay_seconds = NEW.delay_seconds, hits = NEW.hits,
        created_at = NEW.created_at, body_pattern = NEW.body_pattern
    WHERE id = OLD.id;
END;

CREATE TRIGGER mocks_delete INSTEAD OF DELETE ON mocks BEGIN
    DELETE FROM mock_rows WHERE id = OLD.id;
END;
