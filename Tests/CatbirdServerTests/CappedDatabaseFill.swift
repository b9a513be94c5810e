import CatbirdTestSupport

extension E2E {
    /// Fills a database capped by `max_page_count` under a `--durability strict` server (whose
    /// answers are withheld with a 503 when their journal rows cannot be written): journal rows
    /// with 2 KB request bodies (`POST url`) until one is withheld, then small rows (`GET url`)
    /// until three in a row are.
    /// - Returns: whether the database filled up so (false after 200 and 400 tries).
    static func fillCappedDatabase(_ client: RawHTTPClient, tenant: String, url: String) throws -> Bool {
        var filled = false
        for _ in 0..<200 where !filled {
            let answer = try client.request("POST", url, headers: tenantHeader(tenant), body: Array(repeating: 0x62, count: 2048))
            filled = answer.status == 503
        }
        var withheldInARow = 0
        for _ in 0..<400 where filled && withheldInARow < 3 {
            let status = try client.request("GET", url, headers: tenantHeader(tenant)).status
            withheldInARow = status == 503 ? withheldInARow + 1 : 0
        }
        return withheldInARow == 3
    }
}
