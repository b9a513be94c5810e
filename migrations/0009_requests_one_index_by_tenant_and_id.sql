-- 0009: the journal's two indexes become one that grows at its end. Rules: docs/schema.md (indexes).

-- requests_by_tenant_method_url (tenant, method, url) took each new row at the place of its url:
-- requests with ever new urls (ids in paths, or 404s for urls nothing mocks) put each new row on
-- another page of the index, so every commit rewrote about one index page (4 KiB) per row. One
-- index in (tenant, id) order that also holds method and url takes every new row at the end of
-- its tenant's part, and still answers every journal query by pattern from the index alone
-- (method and url are compared on its entries; headers and bodies are read from the rows in id
-- order), and every page or count that starts after an id.
DROP INDEX requests_by_tenant_method_url;
DROP INDEX requests_by_tenant;
CREATE INDEX requests_by_tenant ON requests (tenant, id, method, url);
