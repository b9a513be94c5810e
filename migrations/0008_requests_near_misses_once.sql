-- 0008: a 404's near misses stored once. Rules: docs/matching.md#near-misses; columns: docs/schema.md.

-- The 404 body (response_body) already holds the near misses as its "nearMisses" array, byte for
-- byte the near_misses text, so a new row stores where they are in it instead of a second copy:
-- near_misses_offset (1-based byte offset into response_body) and near_misses_length (bytes).
-- The text is kept in its own column, near_misses_copy (the former near_misses, renamed in place
-- without rewriting any row), only when the stored body does not hold it: rows written before
-- this migration, a HEAD request (no body is sent), a body cut by the journal body limit.
-- near_misses stays what SQL users read: a virtual generated column (computed when read, never
-- stored) with the same name, type and text as before.
ALTER TABLE requests RENAME COLUMN near_misses TO near_misses_copy;
ALTER TABLE requests ADD COLUMN near_misses_offset INTEGER;
ALTER TABLE requests ADD COLUMN near_misses_length INTEGER;
ALTER TABLE requests ADD COLUMN near_misses TEXT GENERATED ALWAYS AS (
    CASE WHEN near_misses_offset IS NULL THEN near_misses_copy
         ELSE CAST(substr(response_body, near_misses_offset, near_misses_length) AS TEXT) END
) VIRTUAL;
