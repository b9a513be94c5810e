-- 0007: why a journaled request has no answer of Catbird's own. Rules: docs/protocol.md#malformed-requests;
-- column: docs/schema.md.

-- One sentence for a request journaled without an answer from Catbird: libmicrohttpd refused it
-- with its own error page (whose headers and body are not recorded), or nothing was sent (the
-- client left, the connection timed out). NULL for every request Catbird answered, and for
-- requests journaled before this migration.
ALTER TABLE requests ADD COLUMN problem TEXT;
