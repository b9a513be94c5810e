-- Journal queries by pattern (count, wait, find) run in SQLite: the tenant's rows with a method
-- and an exact url are found through this index, and a wildcard or regexp url is matched with
-- GLOB over the index alone (it holds every column such a query reads, the row id included).
-- Not contract (docs/schema.md lists the indexes as such).
CREATE INDEX requests_by_tenant_method_url ON requests (tenant, method, url);
