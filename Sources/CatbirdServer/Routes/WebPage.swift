/// `GET /catbird`: a page that shows a tenant's journal live (polls `/catbird/api/requests`).
enum WebPage {
    static let html = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Catbird</title>
        <style>
        body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse;width:100%}
        td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
        th{background:#f4f4f4}.none{color:#b00}code{font-size:12px}
        </style></head><body>
        <h1>Catbird</h1>
        <p>Tenant (parallel id, empty = default): <input id="tenant" size="30">
        <button id="clear">Clear journal</button> <span id="status"></span></p>
        <table><thead><tr><th>#</th><th>time</th><th>method</th><th>url</th><th>status</th><th>answered by</th><th>ms</th></tr></thead>
        <tbody id="rows"></tbody></table>
        <script>
        let since = 0, tenant = "";
        const rows = document.getElementById("rows"), status = document.getElementById("status");
        function headers() { return tenant ? {"X-Catbird-Parallel-Id": tenant} : {}; }
        function cell(tr, text, cls) { const td = tr.insertCell(); td.textContent = text; if (cls) td.className = cls; }
        async function poll() {
          try {
            const r = await fetch("/catbird/api/requests?limit=1000&since=" + since, {headers: headers()});
            const page = await r.json();
            for (const e of page.requests) {
              const tr = rows.insertRow(0);
              cell(tr, e.id); cell(tr, e.time); cell(tr, e.method); cell(tr, e.url);
              cell(tr, e.response.status); cell(tr, e.answeredBy, e.answeredBy === "none" ? "none" : "");
              cell(tr, e.durationMs.toFixed(1));
            }
            if (page.nextSince) since = page.nextSince;
            status.textContent = "live";
          } catch (error) { status.textContent = "offline: " + error; }
          setTimeout(poll, page_interval);
        }
        const page_interval = 1000;
        document.getElementById("tenant").addEventListener("change", (event) => {
          tenant = event.target.value; since = 0; rows.innerHTML = "";
        });
        document.getElementById("clear").addEventListener("click", async () => {
          await fetch("/catbird/api/requests", {method: "DELETE", headers: headers()}); since = 0; rows.innerHTML = "";
        });
        poll();
        </script></body></html>
        """
}
