-- 0006: near misses of unmatched requests. Rules: docs/matching.md#near-misses; column: docs/schema.md.

-- For a request no mock, file or upstream answered (the 404): its closest mocks as a JSON array,
-- '[]' when there were none to compare; NULL for every other request, and for requests journaled
-- before this migration.
ALTER TABLE requests ADD COLUMN near_misses TEXT;
