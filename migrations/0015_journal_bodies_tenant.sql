-- The tenant whose rows point at each stored-once response body (`journal_bodies`,
-- docs/schema.md#response-bodies-stored-once): a body is only ever shared by rows of one
-- tenant (the journal writer remembers bodies per tenant), so the byte limit of retention
-- counts it in that tenant's share (tester findings tester34b-F9 and F10: counted toward the
-- total only, such bodies made the limit empty whole journals while every tenant was within
-- its share). NULL for a body stored before this migration: counted toward the total only, as
-- before. Not contract; not visible to /catbird/api/sql.
ALTER TABLE journal_bodies ADD COLUMN tenant TEXT;
