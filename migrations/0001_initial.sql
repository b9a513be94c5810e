-- 0001: tenants, mocks and the request journal.
-- Forward-only: once landed, this file is never edited; later changes get a new number.
-- Table and column names are public contract (users query them through /catbird/api/sql).

-- One row per tenant (parallel id). The default tenant, used when a request carries no
-- X-Catbird-Parallel-Id header, is the empty string and always exists.
CREATE TABLE tenants (
    id               TEXT PRIMARY KEY NOT NULL,
    created_at       TEXT NOT NULL,            -- UTC, ISO 8601 with milliseconds
    last_activity_at TEXT NOT NULL             -- last control change or journaled request
) WITHOUT ROWID;

INSERT INTO tenants (id, created_at, last_activity_at)
VALUES ('', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

-- Dynamic mocks (stubs). Within a tenant, mocks are matched in ascending `position`;
-- the first match wins (Catbird 0.11 semantics). Replacing a mock in place gives it a new
-- id but keeps its position. AUTOINCREMENT: an id is never reused, so a journal row's
-- mock_id and a hit count written after the mock was removed never point at a newer mock.
CREATE TABLE mocks (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant           TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    position         INTEGER NOT NULL,
    method           TEXT NOT NULL,
    url_kind         TEXT NOT NULL CHECK (url_kind IN ('equal', 'wildcard', 'regexp')),
    url_value        TEXT NOT NULL,
    header_patterns  TEXT NOT NULL DEFAULT '{}', -- JSON: {"Name": {"kind": "...", "value": "..."}}
    status           INTEGER NOT NULL,
    response_headers TEXT NOT NULL DEFAULT '{}', -- JSON: {"Name": "value"}
    response_body    BLOB,                       -- raw bytes; NULL = no body
    remaining_limit  INTEGER,                    -- responses left before removal; NULL = unlimited
    delay_seconds    INTEGER,                    -- whole seconds before responding; NULL = none
    hits             INTEGER NOT NULL DEFAULT 0, -- responses served by this mock
    created_at       TEXT NOT NULL
);
CREATE INDEX mocks_by_tenant_position ON mocks (tenant, position);

-- The request journal: one row per non-control request, answered or not.
-- AUTOINCREMENT: ids keep increasing after the journal is cleared, so paging with
-- `since=<last id seen>` never skips new entries.
CREATE TABLE requests (
    id                      INTEGER PRIMARY KEY AUTOINCREMENT,
    time                    TEXT NOT NULL,              -- UTC, ISO 8601 with milliseconds
    tenant                  TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    method                  TEXT NOT NULL,
    url                     TEXT NOT NULL,              -- request-target as received
    request_headers         TEXT NOT NULL DEFAULT '{}', -- JSON object; a repeated name maps to an array of its values
    request_body            BLOB,                       -- possibly truncated, see below
    request_body_size       INTEGER NOT NULL DEFAULT 0, -- full size in bytes
    request_body_truncated  INTEGER NOT NULL DEFAULT 0, -- 1 when request_body holds a prefix only
    status                  INTEGER NOT NULL,
    response_headers        TEXT NOT NULL DEFAULT '{}', -- JSON object
    response_body           BLOB,
    response_body_size      INTEGER NOT NULL DEFAULT 0,
    response_body_truncated INTEGER NOT NULL DEFAULT 0,
    answered_by             TEXT NOT NULL CHECK (answered_by IN ('mock', 'file', 'proxy', 'redirect', 'none')),
    mock_id                 INTEGER,                    -- the mock that answered; it may since be gone
    duration_ms             REAL NOT NULL               -- milliseconds from request to response, delay included
);
CREATE INDEX requests_by_tenant ON requests (tenant, id);
