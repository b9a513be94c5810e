-- 0005: body matchers on mocks. Rules: docs/matching.md#body-matchers; column: docs/schema.md.

-- A mock's body pattern as JSON, {"kind": "...", "value": "...", "equalTo": ...}; NULL when the
-- mock does not match the body (every mock added before this migration).
ALTER TABLE mocks ADD COLUMN body_pattern TEXT;
