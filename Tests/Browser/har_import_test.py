"""The HAR export (GET /catbird/api/requests.har, docs/protocol.md#har-export) read by Chrome
DevTools' own HAR importer in headless Chromium: the module behind the Network panel's
"Import HAR file" (`models/har/har.js` of the DevTools front end that Chromium serves on its
remote-debugging port) parses the file and makes a network request of every entry, with the
URL, method, status, MIME type, size, headers, query and body we exported.

Run by webpage_test.py's runner (scripts/browser-tests), with its Server and browser()."""

import base64
import json

BINARY = bytes(range(256))

# Imports DevTools' HAR module from the front end the browser serves itself, parses `har` as the
# Network panel's import does (HARRoot, then Importer.requestsFromHARLog) and describes each
# request it made.
IMPORT = """
const [har, done] = arguments;
(async () => {
  const HAR = await import('/devtools/models/har/har.js');
  const requests = HAR.Importer.Importer.requestsFromHARLog(new HAR.HARFormat.HARRoot(JSON.parse(har)).log);
  const described = [];
  for (const request of requests) {
    const content = await request.requestContentData();
    const read = name => { try { return content && content[name] !== undefined ? content[name] : null; } catch { return null; } };
    described.push({
      url: request.url(), method: request.requestMethod, status: request.statusCode, mimeType: request.mimeType,
      size: request.resourceSize, requestHeaders: request.requestHeaders().map(h => [h.name, h.value]),
      query: (request.queryParameters || []).map(p => [p.name, p.value]),
      text: read('text'), base64: read('base64'),
    });
  }
  return described;
})().then(result => done({result}), error => done({error: String(error && error.stack || error)}));
"""


def test_har_export_opens_in_chrome_devtools_importer(server, driver):
    server.add_mock("/text", body="héllo".encode(), headers={"Content-Type": "text/plain; charset=utf-8"})
    server.add_mock("/binary", body=BINARY, headers={"Content-Type": "application/octet-stream"})
    server.add_mock("/empty", status=204)
    server.request("GET", "/text", headers={"X-Multi": "one"})
    server.request("GET", "/binary")
    server.request("GET", "/empty")
    server.request("POST", "/missing?q=a+b&r=1", body=b'{"a":1}', headers={"Content-Type": "application/json"})
    status, _, har = server.request("GET", "/catbird/api/requests.har")
    assert status == 200, status

    # A page of the origin that serves the DevTools front end, so its modules can be imported.
    debugger = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
    driver.get(f"http://{debugger}/json/version")
    driver.set_script_timeout(30)
    outcome = driver.execute_async_script(IMPORT, har.decode())
    assert "error" not in outcome, f"DevTools' importer failed: {outcome.get('error')}"
    imported = outcome["result"]
    assert [(r["method"], r["url"].split(str(server.port), 1)[1], r["status"]) for r in imported] == [
        ("GET", "/text", 200), ("GET", "/binary", 200), ("GET", "/empty", 204), ("POST", "/missing?q=a+b&r=1", 404),
    ], json.dumps(imported)[:1000]
    text, binary, empty, missing = imported
    assert text["mimeType"].startswith("text/plain") and text["text"] == "héllo", text
    assert ["X-Multi", "one"] in text["requestHeaders"], text["requestHeaders"]
    assert base64.b64decode(binary["base64"] or "") == BINARY, binary
    assert binary["size"] == 256, binary
    assert empty["size"] == 0, empty
    assert missing["mimeType"].startswith("application/json") and '"error":true' in missing["text"], missing
    assert ["r", "1"] in missing["query"], missing["query"]


TESTS = [(test_har_export_opens_in_chrome_devtools_importer, ())]
