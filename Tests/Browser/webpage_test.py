"""Tests of the web log page at /catbird in a real headless Chromium, driven by Selenium.

Each test starts its own Catbird (the binary in $CATBIRD_BINARY) on a free loopback port with
a fresh SQLite file, sends requests to it over HTTP as an app would, and looks at the page as a
user would. Run by scripts/browser-tests, which installs Chromium, chromedriver and Selenium.

    python webpage_test.py                      run every test
    python webpage_test.py -k tenant            run the tests whose name contains "tenant"
    python webpage_test.py --screenshot out.png save a screenshot of the page with a few requests

The last line of a run reads "browser tests: N passed, N failed".
"""

import base64
import gzip
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse
import zlib

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BINARY = os.environ.get("CATBIRD_BINARY", ".build/debug/catbird")
XSS = "<img src=x onerror=alert(1)>"


# ------------------------------------------------------------------ server and HTTP helpers

def free_port():
    """A loopback port no one listens on: one the OS chooses, or, when $CATBIRD_BROWSER_PORTS
    names a range (`20200-20249`: a shared host where each user keeps to its own ports), the
    first free one in it."""
    first, _, last = os.environ.get("CATBIRD_BROWSER_PORTS", "0-0").partition("-")
    for port in range(int(first), int(last or first) + 1):
        probe = socket.socket()
        try:
            probe.bind(("127.0.0.1", port))
            return probe.getsockname()[1]
        except OSError:
            continue
        finally:
            probe.close()
    raise RuntimeError(f"no free port in CATBIRD_BROWSER_PORTS={os.environ['CATBIRD_BROWSER_PORTS']}")


class Server:
    """A Catbird process on a free port with its own database file; stopped by stop()."""

    def __init__(self, *extra):
        self.dir = tempfile.TemporaryDirectory(prefix="catbird-browser-")
        self.port = free_port()
        self.extra = extra
        self.database = os.path.join(self.dir.name, "catbird.sqlite")
        self.log = open(os.path.join(self.dir.name, "server.log"), "w")
        self.url = f"http://127.0.0.1:{self.port}"
        self.start()

    def start(self):
        self.process = subprocess.Popen(
            [BINARY, "--port", str(self.port), "--db", self.database, "--log-level", "warning", *self.extra],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                if self.request("GET", "/catbird/api/health")[0] == 200:
                    return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"catbird did not start (exit {self.process.poll()})")
            time.sleep(0.05)

    def request(self, method, target, body=None, headers=None, tenant=None):
        """Sends one request; answers (status, headers, body bytes)."""
        headers = dict(headers or {})
        if tenant is not None:
            # http.client sends str headers as Latin-1: pass the UTF-8 bytes for any tenant id.
            headers["X-Catbird-Parallel-Id"] = tenant.encode("utf-8")
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def json(self, method, target, body=None, tenant=None, headers=None):
        headers = dict(headers or {})
        if body is not None:
            headers["Content-Type"] = "application/json"
        status, _, data = self.request(method, target, json.dumps(body) if body is not None else None, headers, tenant)
        return status, (json.loads(data) if data else None)

    def add_mock(self, url, status=200, body=b"", headers=None, tenant=None, limit=None):
        response = {"status": status, "headers": headers or {}, "body": base64.b64encode(body).decode()}
        if limit is not None:
            response["limit"] = limit
        status_code, _ = self.json("POST", "/catbird/api/mocks", {
            "type": "update", "pattern": {"method": "GET", "url": {"kind": "equal", "value": url}, "headers": {}},
            "response": response}, tenant)
        assert status_code == 201, status_code

    def restart_on_a_fresh_database(self):
        """Stops the server, deletes its database file (as a CI host does between runs) and
        starts it again on the same port, as a supervisor would: its journal ids start again at 1."""
        self.process.terminate()
        self.process.wait(timeout=20)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(self.database + suffix):
                os.remove(self.database + suffix)
        self.start()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        self.dir.cleanup()


def flood(server, count, tenant, connections=8):
    """Journals `count` GET requests in `tenant` fast: each connection writes its requests in
    batches without waiting (HTTP/1.1 pipelining) and then reads the answers."""
    header = f"X-Catbird-Parallel-Id: {tenant}\r\n".encode() if tenant else b""

    def worker(start, n):
        sock = socket.create_connection(("127.0.0.1", server.port))
        done = 0
        while done < n:
            batch = min(500, n - done)
            payload = b"".join(
                b"GET /bulk/%d HTTP/1.1\r\nHost: x\r\n%s\r\n" % (start + done + i, header) for i in range(batch))
            sock.sendall(payload)
            seen, buffer = 0, b""
            while seen < batch:
                chunk = sock.recv(1 << 20)
                assert chunk, "server closed the connection"
                buffer += chunk
                seen = buffer.count(b"HTTP/1.1 ")
            done += batch
        sock.close()

    per = count // connections
    threads = [threading.Thread(target=worker, args=(i * per, per if i < connections - 1 else count - per * (connections - 1)))
               for i in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


# ------------------------------------------------------------------ browser helpers

def browser(width=1280, height=860, phone=False):
    options = webdriver.ChromeOptions()
    if phone:  # a phone's viewport and pixel ratio (a plain window cannot be narrower than 500 px)
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 3}})
    options.add_argument("--headless=new")
    options.add_argument("--no-sandbox")  # CI containers run as root
    options.add_argument("--disable-dev-shm-usage")
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path="/usr/bin/chromedriver", port=free_port())
    return webdriver.Chrome(options=options, service=service)


def wait(driver, condition, timeout=10, message=""):
    # The page re-renders lists (the tenants picker every 5 s): an element found by a condition
    # may be replaced before the condition reads it; that poll is simply retried.
    return WebDriverWait(
        driver, timeout, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,)
    ).until(lambda d: condition(d), message)


def rows(driver):
    """The journal rows shown, as (id, url) pairs, top first."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#rows tr'), tr => [Number(tr.dataset.id), tr.children[2].textContent])")


def wait_live(driver):
    wait(driver, lambda d: d.find_element(By.ID, "status").text == "live", message="page never went live")


def open_paused(driver, server, tenant):
    """Opens the page on `tenant`, waits until it is live, and pauses it."""
    driver.get(server.url + "/catbird?tenant=" + tenant)
    wait_live(driver)
    driver.find_element(By.ID, "pause").click()


def set_hidden(driver, hidden):
    """Makes the page in the current tab see itself hidden (or shown again), as a browser tab
    behind another does: headless Chromium reports every tab `visible` (checked: a tab behind a
    newer one, or behind another window, still reads `visible`), so `document.visibilityState`
    and `document.hidden` are overridden in the page and a `visibilitychange` event is sent."""
    driver.execute_script("""
        const hidden = arguments[0];
        Object.defineProperty(document, "visibilityState", { configurable: true, get: () => hidden ? "hidden" : "visible" });
        Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
        document.dispatchEvent(new Event("visibilitychange"));""", hidden)


def console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def no_alert(driver):
    try:
        text = driver.switch_to.alert.text
    except NoAlertPresentException:
        return
    raise AssertionError(f"an alert ran: {text!r}")


# ------------------------------------------------------------------ the tests

def test_page_loads_without_console_errors_and_journals_nothing(server, driver):
    status, headers, body = server.request("GET", "/catbird")
    assert status == 200
    policy = headers.get("Content-Security-Policy", "")
    assert "script-src 'self'" in policy and "default-src 'none'" in policy, policy
    assert b"<script>" not in body, "the page must carry no inline script"
    assert len(body) + sum(len(server.request("GET", p)[2]) for p in
                           ("/catbird/assets/page.js", "/catbird/assets/page.css", "/catbird/assets/icon.svg")) < 150_000

    driver.get(server.url + "/catbird")
    wait_live(driver)
    driver.find_element(By.ID, "tab-mocks").click()
    driver.find_element(By.ID, "tab-journal").click()
    time.sleep(1.5)  # a few live polls and a tenants refresh
    errors = console_errors(driver)
    assert not errors, errors
    # Nothing the page did (assets, icon, API calls) is in any tenant's journal.
    _, tenants = server.json("GET", "/catbird/api/tenants")
    assert all(t["requests"] == 0 for t in tenants["tenants"]), tenants
    icon = driver.execute_script("return document.querySelector('link[rel=icon]').href")
    assert icon.endswith("/catbird/assets/icon.svg"), icon


def test_request_made_after_load_appears_within_two_seconds(server, driver):
    server.request("GET", "/before-load")
    driver.get(server.url + "/catbird")
    wait_live(driver)
    assert [url for _, url in rows(driver)] == ["/before-load"]
    sent = time.monotonic()
    server.request("POST", "/after-load?x=1", b"hi")
    wait(driver, lambda d: any(url == "/after-load?x=1" for _, url in rows(d)), timeout=2,
         message="the new request did not appear within 2 s")
    elapsed = time.monotonic() - sent
    assert [url for _, url in rows(driver)][0] == "/after-load?x=1", "newest first"
    print(f"    appeared after {elapsed * 1000:.0f} ms")
    # Live updates come through a long poll: while nothing happens, the page's one request waits
    # at the server instead of asking again and again.
    time.sleep(0.5)
    polls = "return performance.getEntriesByType('resource').filter(e => e.name.includes('since=')).length"
    before = driver.execute_script(polls)
    time.sleep(3)
    assert driver.execute_script(polls) - before <= 1, "polled repeatedly while idle"


def test_choosing_a_tenant_shows_only_its_requests_and_its_url_is_shareable(server, driver):
    tenant = "shard-α 東京"
    server.request("GET", "/default-only")
    server.request("GET", "/mine/1", tenant=tenant)
    server.request("GET", "/mine/2", tenant=tenant)
    server.request("GET", "/other", tenant="shard-2")
    driver.get(server.url + "/catbird")
    wait_live(driver)
    assert [url for _, url in rows(driver)] == ["/default-only"], "the default tenant first"
    names = [b.text.split("\n")[0] for b in driver.find_elements(By.CSS_SELECTOR, "#tenants button")]
    assert names[0] == "default tenant" and tenant in names and "shard-2" in names, names
    button = next(b for b in driver.find_elements(By.CSS_SELECTOR, "#tenants button") if b.text.startswith(tenant))
    assert "2 requests" in button.text, button.text
    button.click()
    wait(driver, lambda d: [url for _, url in rows(d)] == ["/mine/2", "/mine/1"], message="tenant's rows")
    shared = driver.current_url
    assert urllib.parse.parse_qs(urllib.parse.urlparse(shared).query) == {"tenant": [tenant]}, shared
    # Live updates stay scoped to the chosen tenant.
    server.request("GET", "/mine/3", tenant=tenant)
    server.request("GET", "/other/2", tenant="shard-2")
    wait(driver, lambda d: [url for _, url in rows(d)][0] == "/mine/3", timeout=3)
    time.sleep(0.6)
    assert [url for _, url in rows(driver)] == ["/mine/3", "/mine/2", "/mine/1"]
    # The pasted link opens that tenant's log.
    driver.get("about:blank")
    driver.get(shared)
    wait_live(driver)
    assert [url for _, url in rows(driver)] == ["/mine/3", "/mine/2", "/mine/1"]
    assert driver.find_element(By.ID, "tenant-title").text == tenant
    errors = console_errors(driver)
    assert not errors, errors


def test_a_links_status_code_or_other_method_filter_is_shown_and_kept(server, driver):
    # tester22a-F4, the finding's input: `?tenant=shard-a&status=404` (and `method=PROPFIND`) was
    # applied with a blank select (selectedIndex -1) and dropped from the address as soon as the
    # URL filter was typed in.
    server.request("POST", "/a-post", tenant="shard-a")
    server.request("GET", "/a-1", tenant="shard-a")
    driver.get(server.url + "/catbird?tenant=shard-a&status=404&method=GET")
    wait_live(driver)
    assert [url for _, url in rows(driver)] == ["/a-1"], rows(driver)
    chosen = "return [document.getElementById('filter-status'), document.getElementById('filter-method')].map(s => s.options[s.selectedIndex]?.textContent)"
    assert driver.execute_script(chosen) == ["404 (from the link)", "GET"], driver.execute_script(chosen)
    driver.find_element(By.ID, "filter-url").send_keys("a")
    wait(driver, lambda d: "url=a" in d.current_url, message="the URL filter did not reach the address")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query)
    assert query.get("status") == ["404"] and query.get("method") == ["GET"], driver.current_url
    driver.get(server.url + "/catbird?tenant=shard-a&method=PROPFIND")
    wait_live(driver)
    assert driver.execute_script(chosen)[1] == "PROPFIND (from the link)", driver.execute_script(chosen)


def tenant_names(driver):
    """The tenant picker's names, top to bottom."""
    return [b.text.split("\n")[0] for b in driver.find_elements(By.CSS_SELECTOR, "#tenants button")]


def open_with_twelve_shards(server, driver):
    """Journals one request in each of shard-0 … shard-11, opens the page and waits until the
    picker lists them beside the default tenant; returns the picker's name reader."""
    for index in range(12):
        server.request("GET", "/x", tenant=f"shard-{index}")
    driver.get(server.url + "/catbird")
    wait_live(driver)
    wait(driver, lambda d: len(tenant_names(d)) == 13)
    return tenant_names


def test_many_tenants_can_be_filtered_in_the_picker(server, driver):
    names = open_with_twelve_shards(server, driver)
    box = driver.find_element(By.ID, "tenant-filter")
    box.send_keys("shard-1")
    wait(driver, lambda d: names(d) == ["default tenant", "shard-1", "shard-10", "shard-11"], message="filtered")
    # A refresh updates the counts in place: the button found before it is still the one shown.
    button = driver.find_elements(By.CSS_SELECTOR, "#tenants button")[2]
    server.request("GET", "/y", tenant="shard-10")
    wait(driver, lambda d: "2 requests" in button.text, timeout=8, message="count refreshed in place")
    button.click()
    wait(driver, lambda d: [url for _, url in rows(d)] == ["/y", "/x"])
    errors = console_errors(driver)
    assert not errors, errors


def test_typing_in_the_tenant_filter_asks_the_server_nothing(server, driver):
    """Tester finding try8a F8: each keystroke in "Filter tenants…" sent one tenant list, the
    default tenant's slow call, so typing 10 characters tripped its 4-call share (429, the page
    "offline", the default tenant's own count calls refused). The box now filters the list the
    page has; the list is asked for by the periodic refresh alone, one call at a time."""
    names = open_with_twelve_shards(server, driver)
    asked = lambda: driver.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.name.includes('/catbird/api/tenants')).length")
    before = asked()
    box = driver.find_element(By.ID, "tenant-filter")
    for character in "shard-11":
        box.send_keys(character)
    wait(driver, lambda d: names(d) == ["default tenant", "shard-11"], message="filtered")
    # At most one periodic refresh may fall in the typing; one call per keystroke would be 8.
    assert asked() - before <= 1, f"{asked() - before} tenant lists for 8 keystrokes"
    assert "offline" not in driver.find_element(By.ID, "status").text
    box.clear()
    box.send_keys("shard-1")
    wait(driver, lambda d: names(d) == ["default tenant", "shard-1", "shard-10", "shard-11"], message="filtered again")
    errors = console_errors(driver)
    assert not errors, errors


def test_past_two_hundred_tenants_the_picker_asks_for_a_page_and_the_filter_asks_by_prefix(server, driver):
    """Tester finding T11-F3: the page asked for every tenant every 5 s (at 248,909 tenants 34.5 MB
    and 1-3 s of server work a call). It asks for the first 200 by id, says there are more, and
    once typing in the filter pauses asks the server for the ids that start with the text."""
    for index in range(230):
        server.request("GET", "/x", tenant=f"t-{index:03d}")
    driver.get(server.url + "/catbird")
    wait_live(driver)
    wait(driver, lambda d: len(tenant_names(d)) == 200, message="the first 200 tenants")
    wait(driver, lambda d: "type the start of an id" in d.find_element(By.ID, "tenants-more").text, message="the note")
    asked = lambda: driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/catbird/api/tenants'))")
    assert asked() and all("limit=200" in name for name in asked()), asked()
    driver.find_element(By.ID, "tenant-filter").send_keys("t-22")
    wait(driver, lambda d: tenant_names(d) == ["default tenant"] + [f"t-22{i}" for i in range(10)], message="found by prefix")
    assert any("prefix=t-22" in name for name in asked()), asked()
    errors = console_errors(driver)
    assert not errors, errors


def test_with_an_admin_token_a_tenant_link_works_and_the_token_lists_every_tenant(server, driver):
    server.request("GET", "/default/1")
    server.request("GET", "/shard/1", tenant="shard-1")
    driver.get(server.url + "/catbird?tenant=shard-1")
    wait_live(driver)
    assert [url for _, url in rows(driver)] == ["/shard/1"], "a tenant's link needs no token"
    wait(driver, lambda d: d.find_element(By.ID, "token-form").is_displayed(), message="token asked for")
    names = lambda d: [b.text.split("\n")[0] for b in d.find_elements(By.CSS_SELECTOR, "#tenants button")]
    assert names(driver) == ["default tenant", "shard-1"] and "this view's tenant" in driver.find_element(By.ID, "tenants").text, \
        "without the token: the default tenant (as an ordinary client) and the link's tenant"
    # Regression (tester22a-F7): a wrong token was kept and sent on every call, without a word.
    driver.find_element(By.ID, "token").send_keys("wrong")
    driver.find_element(By.CSS_SELECTOR, "#token-form button").click()
    wait(driver, lambda d: "The admin token was not accepted" in d.find_element(By.ID, "notice").text,
         message="a wrong token is said to be refused")
    assert driver.execute_script("return sessionStorage.getItem('catbird.token')") is None, "the wrong token is not kept"
    assert driver.find_element(By.ID, "token-form").is_displayed(), "asked for again"
    driver.find_element(By.ID, "token").clear()
    driver.find_element(By.ID, "token").send_keys("s3cret")
    driver.find_element(By.CSS_SELECTOR, "#token-form button").click()
    wait(driver, lambda d: "1 request" in d.find_elements(By.CSS_SELECTOR, "#tenants button")[1].text,
         message="every tenant, with counts, with the token")
    assert not driver.find_element(By.ID, "notice").is_displayed(), "the notice goes with a token accepted"
    assert not driver.find_element(By.ID, "token-form").is_displayed()
    driver.find_elements(By.CSS_SELECTOR, "#tenants button")[0].click()
    wait(driver, lambda d: [url for _, url in rows(d)] == ["/default/1"])
    errors = console_errors(driver)
    assert not errors, errors
    _, tenants = server.json("GET", "/catbird/api/tenants", headers={"Authorization": "Bearer s3cret"})
    assert {t["id"]: t["requests"] for t in tenants["tenants"]} == {"": 1, "shard-1": 1}, "the page journaled nothing"


def test_details_show_headers_pretty_json_and_the_answering_mock(server, driver):
    server.add_mock("/api/feed", body=b'{"posts":[{"id":1,"author":"alice","tags":["a","b"]}]}',
                    headers={"Content-Type": "application/json"}, limit=3)
    server.request("GET", "/api/feed", headers={"X-Trace": "trace-42"})
    driver.get(server.url + "/catbird")
    wait_live(driver)
    driver.find_element(By.CSS_SELECTOR, "#rows tr").click()
    wait(driver, lambda d: "Response body" in d.find_element(By.ID, "details").text
         and d.find_elements(By.CSS_SELECTOR, "#details .json"), message="details")
    details = driver.find_element(By.ID, "details").text
    assert "X-Trace" in details and "trace-42" in details, details
    assert "remaining limit 2" in " ".join(details.split()), details  # the mock's limit of 3, less this hit
    json_text = driver.find_element(By.CSS_SELECTOR, "#details .json").text
    assert '"author": "alice",' in json_text, json_text  # pretty-printed, one key per line
    lines = [line.strip() for line in json_text.splitlines()]
    assert '"posts": [' in lines and '"id": 1,' in lines, lines
    # Collapsible: closing the top object hides its keys.
    driver.find_element(By.CSS_SELECTOR, "#details .json > details > summary").click()
    assert '"author"' not in driver.find_element(By.CSS_SELECTOR, "#details .json").text
    driver.find_element(By.ID, "curl").click()
    wait(driver, lambda d: d.find_element(By.ID, "curl-text").get_attribute("value"))
    curl = driver.find_element(By.ID, "curl-text").get_attribute("value")
    assert curl.startswith("curl -X 'GET' '" + server.url + "/api/feed'") and "'X-Trace: trace-42'" in curl, curl
    errors = console_errors(driver)
    assert not errors, errors


def test_details_show_the_answering_mock_as_it_is_now_not_as_the_view_loaded(server, driver):
    # tester22a-F5, the finding's input: mocks `/once` (limit 1) and `/twice` (limit 3) added, the
    # page opened, then one request each. The details said "remaining limit 1, hits 0" for the
    # used-up `/once` mock (gone from the table) and "remaining limit 3, hits 0" for `/twice`.
    tenant = "m"
    server.add_mock("/once", tenant=tenant, limit=1)
    server.add_mock("/twice", tenant=tenant, limit=3)
    driver.get(server.url + "/catbird?tenant=" + tenant)
    wait_live(driver)
    server.request("GET", "/once", tenant=tenant)
    server.request("GET", "/twice", tenant=tenant)
    wait(driver, lambda d: len(rows(d)) == 2, message="rows")
    shown = {}
    for entry_id, url in rows(driver):
        driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{entry_id}"]').click()
        wait(driver, lambda d: "Answered by mock" in d.find_element(By.ID, "details").text
             and d.find_element(By.ID, "details-title").text == "GET " + url, message="details")
        shown[url] = " ".join(driver.find_element(By.ID, "details").text.split())
    assert "(no longer in the table)" in shown["/once"], shown["/once"]
    assert "remaining limit 2 hits 1" in shown["/twice"], shown["/twice"]


def test_an_entrys_problem_marks_its_row_and_is_said_in_its_details(server, driver):
    # tester22a-F8, the finding's input: a client that gives up during a mock's 5 s delay (a red
    # 499 with "Response body empty" and no reason) and a chunked body libmicrohttpd refuses with
    # its own 400 page (shown as an empty 400). The journal's `problem` says why; the page now
    # marks the row (the sentence on hover) and shows it in the details.
    tenant = "odd"
    status, _ = server.json("POST", "/catbird/api/mocks", {
        "type": "update", "pattern": {"method": "GET", "url": {"kind": "equal", "value": "/slow"}, "headers": {}},
        "response": {"status": 200, "delay": 5}}, tenant)
    assert status == 201, status
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: odd\r\n\r\n")
        time.sleep(0.5)  # gives up during the delay
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"POST /badchunk HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: odd\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n")
        sock.shutdown(socket.SHUT_WR)
        while sock.recv(65536):
            pass
    deadline = time.monotonic() + 10
    while True:
        _, page = server.json("GET", "/catbird/api/requests", tenant=tenant)
        problems = {e["id"]: e for e in page["requests"] if e.get("problem")}
        if len(problems) == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert sorted(e["url"] for e in problems.values()) == ["/badchunk", "/slow"], page
    driver.get(server.url + "/catbird?tenant=" + tenant)
    wait_live(driver)
    for entry_id, entry in problems.items():
        row = driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{entry_id}"]')
        assert "problem" in row.get_attribute("class").split(), row.get_attribute("class")
        assert row.get_attribute("title") == entry["problem"], (row.get_attribute("title"), entry)
        row.click()
        wait(driver, lambda d: d.find_element(By.ID, "details-title").text == f"{entry['method']} {entry['url']}", message="details")
        details = " ".join(driver.find_element(By.ID, "details").text.split())
        assert "problem " + " ".join(entry["problem"].split()) in details, (entry["problem"], details)
    errors = console_errors(driver)
    assert not errors, errors


def test_an_answer_cut_short_after_its_row_was_shown_is_marked_live(server, driver):
    """Regression (tester finding tester56b-F4, its repro with a 20 MB body): the `problem` of an
    answer cut short is added when its connection ends, after the live page showed the row, and
    the page, which polls for newer entries only, left the row unmarked until a reload (34 s
    later still), and its open details kept the entry as first read (tester57a-F6). Now the
    row gets its mark and its sentence on hover while the page stays live, and its open details
    show the problem."""
    body = base64.b64encode(b"h" * 20_000_000).decode()
    status, _ = server.json("POST", "/catbird/api/mocks", {
        "type": "update", "pattern": {"method": "GET", "url": {"kind": "equal", "value": "/huge"}, "headers": {}},
        "response": {"status": 200, "headers": {}, "body": body}})
    assert status == 201, status
    driver.get(server.url + "/catbird")
    wait_live(driver)
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.sendall(b"GET /huge HTTP/1.1\r\nHost: x\r\n\r\n")
    sock.recv(1000)
    row = wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#rows tr"), message="the row of /huge")
    assert "/huge" in row.text, row.text
    assert "problem" not in row.get_attribute("class").split(), "marked before the answer was cut short"
    row.click()  # its details open (tester57a-F6: they kept the entry as first read)
    wait(driver, lambda d: d.find_element(By.ID, "details").get_attribute("data-entry-id") is not None, message="details")
    assert "problem" not in driver.find_element(By.ID, "details").text.split()
    sock.close()
    deadline = time.monotonic() + 10
    while True:
        _, page = server.json("GET", "/catbird/api/requests")
        entry = page["requests"][0]
        if entry.get("problem") or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert entry["url"] == "/huge" and "closed the connection" in (entry.get("problem") or ""), entry
    wait(driver, lambda d: "problem" in d.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{entry["id"]}"]').get_attribute("class").split(),
         timeout=8, message="the row never got its mark")
    row = driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{entry["id"]}"]')
    assert row.get_attribute("title") == entry["problem"], (row.get_attribute("title"), entry["problem"])
    wait(driver, lambda d: "closed the connection" in d.find_element(By.ID, "details").text, message="the open details never showed the problem")
    assert driver.find_element(By.ID, "status").text == "live"
    errors = console_errors(driver)
    assert not errors, errors


def test_a_shards_request_answered_by_a_shared_fixture_shows_that_mock(server, driver):
    # tester20b-F12: a default-tenant mock (a shared fixture) answered shard fbk's request, and
    # the details said "#1 (no longer in the table)": the page looked only in the shard's table.
    server.add_mock("/def-x", body=b"shared", limit=5)
    server.request("GET", "/def-x", tenant="fbk")
    driver.get(server.url + "/catbird?tenant=fbk")
    wait_live(driver)
    driver.find_element(By.CSS_SELECTOR, "#rows tr").click()
    wait(driver, lambda d: "Answered by mock" in d.find_element(By.ID, "details").text, message="details")
    details = " ".join(driver.find_element(By.ID, "details").text.split())
    assert "no longer in the table" not in details, details
    assert "the default tenant's (a shared fixture)" in details, details
    assert "remaining limit 4" in details and "/def-x" in details, details
    errors = console_errors(driver)
    assert not errors, errors


def test_hidden_tabs_hold_no_long_poll_so_a_seventh_tab_loads_and_shows_details_at_once(server, driver):
    # tester22a-F10: each open tab kept a 25 s long poll parked, so six tabs took the browser's 6
    # connections to the origin and a 7th tab loaded after ~24 s (an 8th never). A hidden tab
    # now drops its poll, and asks for what arrived meanwhile as soon as it is shown again.
    for i in range(7):
        server.request("GET", f"/tab/{i}", tenant=f"tab{i}")
    handles = []
    for i in range(6):
        if i:
            driver.switch_to.new_window("tab")
        driver.get(server.url + f"/catbird?tenant=tab{i}")
        wait_live(driver)
        time.sleep(0.2)  # its long poll is parked at the server
        set_hidden(driver, True)
        handles.append(driver.current_window_handle)
    driver.switch_to.new_window("tab")
    driver.set_page_load_timeout(8)
    started = time.monotonic()
    driver.get(server.url + "/catbird?tenant=tab6")  # waited behind six parked polls before
    wait(driver, lambda d: d.find_element(By.ID, "status").text == "live" and rows(d), timeout=5,
         message="the 7th tab did not go live")
    driver.find_element(By.CSS_SELECTOR, "#rows tr").click()
    wait(driver, lambda d: "Response body" in d.find_element(By.ID, "details").text, timeout=5,
         message="the 7th tab's details did not show")
    print(f"    7th tab live with details after {time.monotonic() - started:.1f} s")
    # What arrives while a tab is hidden is shown once it is shown again, without a reload.
    server.request("GET", "/tab/0/while-hidden", tenant="tab0")
    driver.switch_to.window(handles[0])
    time.sleep(0.5)
    assert [url for _, url in rows(driver)] == ["/tab/0"], rows(driver)  # no poll while hidden
    set_hidden(driver, False)
    wait(driver, lambda d: [url for _, url in rows(d)] == ["/tab/0/while-hidden", "/tab/0"], timeout=3,
         message="what arrived while hidden was not shown")
    wait_live(driver)
    # Shown again, it follows live as before.
    server.request("GET", "/tab/0/after", tenant="tab0")
    wait(driver, lambda d: rows(d)[0][1] == "/tab/0/after", timeout=3, message="not live after being shown")
    errors = console_errors(driver)
    assert not errors, errors


def test_copy_as_curl_reproduces_head_proxy_form_asterisk_and_empty_header_requests(server, driver):
    # try7a F8: a proxy-form entry gave 'http://127.0.0.1:8080http://…', `OPTIONS *` '…:8080*', a
    # HEAD `-X 'HEAD'` (curl then waits for the announced body: rc 28), and an empty header
    # value `-H 'X-Empty: '` (which curl leaves out). Each copied command, run, journals the
    # same method, target and headers again.
    server.request("HEAD", "/h", headers={"X-Empty": ""})
    server.request("GET", "http://api.example.com/x?q=1", headers={"X-Empty": ""})
    server.request("OPTIONS", "*", headers={"X-Empty": ""})
    _, page = server.json("GET", "/catbird/api/requests")
    sent = {entry["id"]: entry for entry in page["requests"]}
    assert sorted((e["method"], e["url"]) for e in sent.values()) == [
        ("GET", "http://api.example.com/x?q=1"), ("HEAD", "/h"), ("OPTIONS", "*")], sent
    driver.get(server.url + "/catbird")
    wait_live(driver)
    commands = {}
    for entry_id in sent:
        driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{entry_id}"]').click()
        wait(driver, lambda d: d.find_element(By.ID, "curl").is_displayed(), message="details")
        driver.execute_script("document.getElementById('curl-text').value = ''")
        driver.find_element(By.ID, "curl").click()
        wait(driver, lambda d: d.find_element(By.ID, "curl-text").get_attribute("value"), message="curl text")
        commands[sent[entry_id]["method"]] = driver.find_element(By.ID, "curl-text").get_attribute("value")
    assert commands["HEAD"].startswith("curl --head '" + server.url + "/h'"), commands
    # tester29a-F3: through --proxy, curl rewrote proxy-form URLs; now sent as written, with
    # the journaled Host.
    assert commands["GET"].startswith("curl -X 'GET' --request-target 'http://api.example.com/x?q=1' '" + server.url + "'"), commands
    assert "-H 'Host: api.example.com'" in commands["GET"], commands
    assert commands["OPTIONS"].startswith("curl -X 'OPTIONS' --request-target '*' '" + server.url + "'"), commands
    assert all("-H 'X-Empty;'" in command for command in commands.values()), commands
    for command in commands.values():
        run = subprocess.run(["bash", "-c", command + " -s -o /dev/null -m 10"], capture_output=True)
        assert run.returncode == 0, (command, run.returncode, run.stderr)
    _, page = server.json("GET", "/catbird/api/requests")
    replayed = [entry for entry in page["requests"] if entry["id"] not in sent]
    key = lambda e: (e["method"], e["url"], e["request"]["headers"].get("X-Empty"), e["request"]["headers"].get("Host"))
    assert sorted(map(key, replayed)) == sorted(map(key, sent.values())), (replayed, sent)
    errors = console_errors(driver)
    assert not errors, errors


def test_copy_as_curl_sends_a_body_starting_with_an_at_sign_as_written(server, driver):
    # try9b F3, the exact body: `--data-binary '@/etc/hostname'` made curl upload that file
    # instead of the 14 journaled bytes (a hostile request could name any file of the developer's).
    server.request("POST", "/api/comment", b"@/etc/hostname", {"Content-Type": "text/plain"})
    _, page = server.json("GET", "/catbird/api/requests")
    [entry] = page["requests"]
    driver.get(server.url + "/catbird")
    wait_live(driver)
    driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{entry["id"]}"]').click()
    wait(driver, lambda d: d.find_element(By.ID, "curl").is_displayed(), message="details")
    driver.find_element(By.ID, "curl").click()
    wait(driver, lambda d: d.find_element(By.ID, "curl-text").get_attribute("value"), message="curl text")
    command = driver.find_element(By.ID, "curl-text").get_attribute("value")
    assert "--data-raw '@/etc/hostname'" in command, command
    run = subprocess.run(["bash", "-c", command + " -s -o /dev/null -m 10"], capture_output=True)
    assert run.returncode == 0, (command, run.returncode, run.stderr)
    _, page = server.json("GET", "/catbird/api/requests")
    [replayed] = [e for e in page["requests"] if e["id"] != entry["id"]]
    status, _, body = server.request("GET", f"/catbird/api/requests/{replayed['id']}/request/body")
    assert (status, body) == (200, b"@/etc/hostname"), (status, body)
    errors = console_errors(driver)
    assert not errors, errors


def copied_curl(driver, entry_id):
    """Opens the entry `entry_id` and answers the command "Copy as curl" builds for it."""
    driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{entry_id}"]').click()
    wait(driver, lambda d: d.find_element(By.ID, "details").get_attribute("data-entry-id") == str(entry_id), message="details")
    driver.execute_script("document.getElementById('curl-text').value = ''")
    driver.find_element(By.ID, "curl").click()
    wait(driver, lambda d: d.find_element(By.ID, "curl-text").get_attribute("value"), message="curl text")
    return driver.find_element(By.ID, "curl-text").get_attribute("value")


def test_copy_as_curl_while_the_next_entrys_details_load_copies_nothing_of_the_entry_before(server, driver):
    """Regression (CI run of dd37ea16, test_copy_as_curl_sends_non_ascii_and_proxy_form_targets…):
    a row's click, then Copy as curl before that entry's details had loaded, copied the entry
    shown before (its replay journaled `http://user@example.com/x` twice and
    `http://example.com:/x` never). Here the second entry's details are held back a second by
    the browser's fetch: Copy as curl does nothing meanwhile, and copies the second entry once
    they are shown."""
    server.request("GET", "/first")
    server.request("GET", "/second")
    _, page = server.json("GET", "/catbird/api/requests")
    ids = {entry["url"]: entry["id"] for entry in page["requests"]}
    driver.get(server.url + "/catbird")
    wait_live(driver)
    assert "/first" in copied_curl(driver, ids["/first"])
    driver.execute_script(
        "const fetched = window.fetch;"
        "window.fetch = (input, init) => String(input).startsWith(arguments[0])"
        " ? new Promise((done) => setTimeout(done, 1000)).then(() => fetched(input, init)) : fetched(input, init);",
        f"/catbird/api/requests/{ids['/second']}?")
    driver.execute_script("document.getElementById('curl-text').value = ''")
    driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{ids["/second"]}"]').click()
    driver.execute_script("document.getElementById('curl').click()")
    time.sleep(0.3)
    assert driver.find_element(By.ID, "details").get_attribute("data-entry-id") is None
    early = driver.find_element(By.ID, "curl-text").get_attribute("value")
    assert early == "", early
    command = copied_curl(driver, ids["/second"])
    assert "/second" in command and "/first" not in command, command


def test_copy_as_curl_then_another_row_shows_no_command_of_the_row_before(server, driver):
    """Regression (tester finding tester57a-F3): Copy as curl on a row with a body, then a click
    on another row while that body was read, showed (and copied) the first row's command under
    the second row's details. Here the body is held back a second by the browser's fetch: the
    second row's details show no command, and its own Copy as curl copies its own."""
    server.request("POST", "/with-body", b"first body", {"Content-Type": "text/plain"})
    server.request("GET", "/second")
    _, page = server.json("GET", "/catbird/api/requests")
    ids = {entry["url"]: entry["id"] for entry in page["requests"]}
    driver.get(server.url + "/catbird")
    wait_live(driver)
    driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{ids["/with-body"]}"]').click()
    wait(driver, lambda d: d.find_element(By.ID, "details").get_attribute("data-entry-id") == str(ids["/with-body"]), message="details")
    driver.execute_script(
        "const fetched = window.fetch;"
        "window.fetch = (input, init) => String(input).startsWith(arguments[0])"
        " ? new Promise((done) => setTimeout(done, 1000)).then(() => fetched(input, init)) : fetched(input, init);",
        f"/catbird/api/requests/{ids['/with-body']}/request/body")
    driver.find_element(By.ID, "curl").click()
    driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{ids["/second"]}"]').click()
    wait(driver, lambda d: d.find_element(By.ID, "details").get_attribute("data-entry-id") == str(ids["/second"]), message="details")
    time.sleep(1.5)
    box = driver.find_element(By.ID, "curl-text")
    shown = box.get_attribute("value") if box.is_displayed() else ""
    assert "/with-body" not in shown, shown
    command = copied_curl(driver, ids["/second"])
    assert "/second" in command and "/with-body" not in command, command


def test_copy_as_curl_of_a_request_whose_query_was_left_out_says_so(server, driver):
    """Regression (tester finding tester58a-F9, its request): a shard's request refused with 431
    before its header section was read is journaled in the default tenant without its query;
    Copy as curl replayed the url without a word. The command now says the query was left out."""
    cookie = b"a" * 30000
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"GET /api/me?access_token=SECRET1 HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: s1\r\nCookie: "
                     + cookie + b"\r\nConnection: close\r\n\r\n")
        while sock.recv(65536):
            pass
    deadline = time.monotonic() + 10
    while True:
        _, page = server.json("GET", "/catbird/api/requests")
        if page["requests"] or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    entry = page["requests"][0]
    assert entry["url"] == "/api/me", entry
    driver.get(server.url + "/catbird")
    wait_live(driver)
    command = copied_curl(driver, entry["id"])
    assert "SECRET1" not in command, command
    assert "# the journal left this request's query (or userinfo) out of its url" in command, command


def test_copy_as_curl_from_the_box_sends_crlf_bodies_bidi_headers_and_odd_targets_as_journaled(server, driver):
    # tester22a-F1, the finding's bodies: the command box (a textarea, the only copy path over
    # plain http://) turned every CRLF and lone CR into LF, so a multipart body was replayed 5 bytes
    # short. F3: a raw U+202E in a header reordered the command shown. F14: `/frag#x?y=1` was sent
    # as `/frag` (curl's fragment) and `/sp ace/x` not at all (curl exit 3). The box's text, run,
    # journals the same target, header and body bytes again.
    multipart = b'--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nhello\r\n--XyZ--\r\n'
    server.request("POST", "/multipart", multipart, {"Content-Type": "multipart/form-data; boundary=XyZ"})
    server.request("POST", "/crlf", b"line1\r\nline2\rline3\n", {"Content-Type": "text/plain"})
    server.request("GET", "/bidi", headers={"X-Name": "José \u202e".encode()})
    for target in (b"/frag#x?y=1", b"/sp ace/x"):
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            while sock.recv(65536):
                pass
    _, page = server.json("GET", "/catbird/api/requests")
    sent = {entry["id"]: entry for entry in page["requests"]}
    assert sorted(e["url"] for e in sent.values()) == ["/bidi", "/crlf", "/frag#x?y=1", "/multipart", "/sp ace/x"], sent
    body = lambda entry_id: server.request("GET", f"/catbird/api/requests/{entry_id}/request/body")[2]
    key = lambda e: (e["method"], e["url"], e["request"]["headers"].get("X-Name"), body(e["id"]) if e["request"]["bodySize"] else b"")
    driver.get(server.url + "/catbird")
    wait_live(driver)
    commands = {entry["url"]: copied_curl(driver, entry_id) for entry_id, entry in sent.items()}  # the box's values
    for command in commands.values():
        run = subprocess.run(["bash", "-c", command + " -s -o /dev/null -m 10"], capture_output=True)
        assert run.returncode == 0, (command, run.returncode, run.stderr)
    _, page = server.json("GET", "/catbird/api/requests")
    replayed = [entry for entry in page["requests"] if entry["id"] not in sent]
    assert sorted(map(key, replayed)) == sorted(map(key, sent.values())), (replayed, sent)
    assert all("\u202e" not in command for command in commands.values()), commands
    assert "$'X-Name: José \\xe2\\x80\\xae'" in commands["/bidi"], commands["/bidi"]
    errors = console_errors(driver)
    assert not errors, errors


def test_copy_as_curl_adds_no_header_field_the_request_did_not_have(server, driver):
    # tester22a-F2, the finding's request: `printf 'a=1&b=2' | curl -H 'Content-Type:'
    # --data-binary @- …/noct` (a body and no Content-Type) was replayed with curl's
    # `Content-Type: application/x-www-form-urlencoded`; a proxy-form `GET http://example.com/abs`
    # with `Proxy-Connection: Keep-Alive`; a request without User-Agent or Accept with curl's.
    # Each copied command, run, journals exactly the original's header fields.
    run = subprocess.run(["bash", "-c", f"printf 'a=1&b=2' | curl -s -o /dev/null -H 'X-Catbird-Parallel-Id: curl-t' "
                                        f"-H 'Content-Type:' --data-binary @- {server.url}/noct"], capture_output=True)
    assert run.returncode == 0, run
    for head in (f"GET /bare HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n",
                 "GET http://example.com/abs HTTP/1.1\r\nHost: example.com\r\n"):
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(head.encode() + b"X-Catbird-Parallel-Id: curl-t\r\nConnection: close\r\n\r\n")
            while sock.recv(65536):
                pass
    fields = lambda entry_id: sorted((f["name"].lower(), f["value"]) for f in server.json(
        "GET", f"/catbird/api/requests/{entry_id}", tenant="curl-t")[1]["request"]["headerFields"] if f["name"].lower() != "connection")
    _, page = server.json("GET", "/catbird/api/requests", tenant="curl-t")
    sent = {entry["url"]: entry["id"] for entry in page["requests"]}
    assert sorted(sent) == ["/bare", "/noct", "http://example.com/abs"], sent
    driver.get(server.url + "/catbird?tenant=curl-t")
    wait_live(driver)
    commands = {url: copied_curl(driver, entry_id) for url, entry_id in sent.items()}
    for command in commands.values():
        run = subprocess.run(["bash", "-c", command + " -s -o /dev/null -m 10"], capture_output=True)
        assert run.returncode == 0, (command, run.returncode, run.stderr)
    _, page = server.json("GET", "/catbird/api/requests", tenant="curl-t")
    replayed = {entry["url"]: entry["id"] for entry in page["requests"] if entry["id"] not in sent.values()}
    assert sorted(replayed) == sorted(sent), replayed
    for url in sent:
        assert fields(replayed[url]) == fields(sent[url]), (url, commands[url], fields(sent[url]), fields(replayed[url]))
    errors = console_errors(driver)
    assert not errors, errors


def test_copy_as_curl_sends_a_repeated_header_field_as_two_and_the_details_list_both(server, driver):
    # T18A-F5, the finding's input: a mock matching `X-Token` equal `abc` (a header pattern matches
    # the first value) and a request with `X-Token: abc` and `X-Token: zzz`. The copied command
    # sent one `-H 'X-Token: abc, zzz'`, which the mock does not answer (404 "header X-Token
    # differs"), and the details showed one field.
    tenant = "t18-dup"
    status, _ = server.json("POST", "/catbird/api/mocks", {
        "type": "update", "pattern": {"method": "GET", "url": {"kind": "equal", "value": "/dup"},
                                      "headers": {"X-Token": {"kind": "equal", "value": "abc"}}},
        "response": {"status": 200, "body": "aGl0"}}, tenant)
    assert status == 201, status
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.putrequest("GET", "/dup")
    connection.putheader("X-Catbird-Parallel-Id", tenant)
    connection.putheader("X-Token", "abc")
    connection.putheader("X-Token", "zzz")
    connection.endheaders()
    response = connection.getresponse()
    assert (response.status, response.read()) == (200, b"hit")
    connection.close()
    _, page = server.json("GET", "/catbird/api/requests", tenant=tenant)
    [entry] = page["requests"]
    driver.get(server.url + "/catbird?tenant=" + tenant)
    wait_live(driver)
    command = copied_curl(driver, entry["id"])
    assert "-H 'X-Token: abc' -H 'X-Token: zzz'" in command and "abc, zzz" not in command, command
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('#details-body table tr'), tr => [tr.children[0].textContent,"
        " tr.children[1].textContent]).filter(([name]) => name === 'X-Token')")
    assert shown == [["X-Token", "abc"], ["X-Token", "zzz"]], shown
    run = subprocess.run(["bash", "-c", command + " -s -m 10"], capture_output=True)
    assert (run.returncode, run.stdout) == (0, b"hit"), (command, run.returncode, run.stdout, run.stderr)
    errors = console_errors(driver)
    assert not errors, errors


def test_copy_as_curl_sends_the_journaled_target_without_globbing_or_dot_segments(server, driver):
    # T14-F2, the finding's targets: the copied `curl -X 'GET' '…/api/{b,c}'` sent GET /api/b and
    # GET /api/c (curl's globbing), `…/api/a/../b` sent /api/b (curl removed the dot segment),
    # `[1-3]` three requests. Each copied command, run, journals the same target once.
    targets = ["/api/{b,c}", "/api/a/../b", "/api/[1-3]", "http://api.example.com/p/./q/../r"]
    for target in targets:
        server.request("GET", target)
    _, page = server.json("GET", "/catbird/api/requests")
    sent = {entry["id"]: entry["url"] for entry in page["requests"]}
    assert sorted(sent.values()) == sorted(targets), sent
    driver.get(server.url + "/catbird")
    wait_live(driver)
    for entry_id in sent:
        command = copied_curl(driver, entry_id)
        run = subprocess.run(["bash", "-c", command + " -s -o /dev/null -m 10"], capture_output=True)
        assert run.returncode == 0, (command, run.returncode, run.stderr)
    _, page = server.json("GET", "/catbird/api/requests")
    replayed = [entry["url"] for entry in page["requests"] if entry["id"] not in sent]
    assert sorted(replayed) == sorted(targets), replayed
    errors = console_errors(driver)
    assert not errors, errors


def test_copy_as_curl_sends_non_ascii_and_proxy_form_targets_a_bom_and_a_head_body_as_journaled(server, driver):
    """Tester finding tester29a-F3 and F4, their exact requests: `/café` (raw UTF-8) was replayed
    as `/caf%c3%a9`; proxy-form targets went through `--proxy`, which rewrote them (the port
    dropped, the scheme lowercased, `/` added, a user name turned into an Authorization field,
    an `https://` URL sent as a CONNECT to the default tenant); a HEAD with a body gave a command
    curl refuses (`--head` with `--data-raw`); a leading byte order mark was dropped from a text
    body (TextDecoder's default). Each copied command, run, now journals the same method,
    target, Host and body bytes."""
    requests = [
        b"GET /caf\xc3\xa9 HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"GET http://EXAMPLE.com:80/a HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"GET HTTP://example.com/b HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"GET http://example.com HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"GET http://example.com?q HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"GET http://user@example.com/x HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"GET http://example.com:/x HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"GET https://example.com/s HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"HEAD /h HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\n\r\nabc",
        b"POST /bom HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n"
        b"\xef\xbb\xbf{\"a\":1}",
    ]
    for request in requests:
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(request[:-4] + b"\r\nConnection: close\r\n\r\n" if request.endswith(b"\r\n\r\n")
                         else request.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1))
            while sock.recv(65536):
                pass

    def journaled(entry):
        # An origin-form request's Host is curl's, naming the server as the page does (README).
        body = server.request("GET", f"/catbird/api/requests/{entry['id']}/request/body")[2]
        host = None if entry["url"].startswith("/") else entry["request"]["headers"].get("Host")
        return (entry["method"], entry["url"], host, body)

    _, page = server.json("GET", "/catbird/api/requests?limit=100")
    sent = {entry["id"]: entry for entry in page["requests"]}
    assert len(sent) == len(requests), sorted(e["url"] for e in sent.values())
    driver.get(server.url + "/catbird")
    wait_live(driver)
    for entry_id, entry in sent.items():
        command = copied_curl(driver, entry_id)
        if entry["url"].startswith("/caf"):
            assert command.startswith("curl -X 'GET' --request-target '/café' '" + server.url + "'"), command
        head = entry["method"] == "HEAD"
        # The HEAD's curl waits (--max-time 5) for the body the 404's Content-Length announces.
        run = subprocess.run(["bash", "-c", command + ("" if head else " -m 10") + " -s -o /dev/null"], capture_output=True)
        assert run.returncode in ((0, 28) if head else (0,)), (command, run.returncode, run.stderr)
    _, page = server.json("GET", "/catbird/api/requests?limit=100")
    replayed = [entry for entry in page["requests"] if entry["id"] not in sent]
    assert sorted(map(journaled, replayed)) == sorted(map(journaled, sent.values())), (
        sorted(map(journaled, replayed)), sorted(map(journaled, sent.values())))
    errors = console_errors(driver)
    assert not errors, errors


def test_copy_as_curl_sends_a_late_nul_and_a_long_text_body_byte_for_byte(server, driver):
    # try11 T11-F6, the finding's bodies: a 5,000-byte text with a NUL after byte 4,096 went into
    # --data-raw (bash dropped the NUL: 4,999 bytes sent), and a 200 KiB text made one argument
    # over Linux's 128 KiB, so the command failed with "Argument list too long".
    bodies = [b"a" * 4100 + b"\0" + b"b" * 899, b"x" * (200 * 1024)]
    for body in bodies:
        server.request("POST", "/upload", body, {"Content-Type": "text/plain"})
    _, page = server.json("GET", "/catbird/api/requests")
    sent = {entry["id"]: entry for entry in page["requests"]}
    driver.get(server.url + "/catbird")
    wait_live(driver)
    for entry_id in sent:
        command = copied_curl(driver, entry_id)
        assert command.startswith("base64 -d <<'CATBIRD_BODY' | curl -X 'POST' ") and "--data-binary @-" in command, command[:300]
        # Fed to bash on its standard input, as a pasted command is (bash -c would make the
        # whole command one argument).
        run = subprocess.run(["bash"], input=command.encode() + b"\n", capture_output=True, timeout=60)
        assert run.returncode == 0, (command[:300], run.returncode, run.stderr)
    _, page = server.json("GET", "/catbird/api/requests")
    replayed = [entry for entry in page["requests"] if entry["id"] not in sent]
    assert len(replayed) == 2, replayed
    got = sorted(server.request("GET", f"/catbird/api/requests/{entry['id']}/request/body")[2] for entry in replayed)
    assert got == sorted(bodies), [len(body) for body in got]
    errors = console_errors(driver)
    assert not errors, errors


def test_json_viewer_shows_keys_and_numbers_as_the_body_wrote_them(server, driver):
    # try11 T11-F5, the finding's values: JSON.parse showed 12345678901234567890 as
    # 12345678901234567000, `1.10` as `1.1`, the keys of {"b":1,"2":2,"1":3} as "1","2","b", and
    # a repeated key's last value, where Catbird's json and jsonPath read the first.
    body = b'{"b":1,"2":2,"1":3,"id":12345678901234567890,"price":1.10,"name":"caf\\u00e9","dup":1,"dup":2}'
    server.request("POST", "/api/order", body, {"Content-Type": "application/json"})
    driver.get(server.url + "/catbird")
    wait_live(driver)
    driver.find_element(By.CSS_SELECTOR, "#rows tr").click()
    wait(driver, lambda d: any('"dup"' in tree.text for tree in d.find_elements(By.CSS_SELECTOR, "#details .json")), message="tree")
    [tree] = [tree.text for tree in driver.find_elements(By.CSS_SELECTOR, "#details .json") if '"dup"' in tree.text]
    lines = [" ".join(line.split()) for line in tree.splitlines()]
    assert lines == [
        "{", '"b": 1,', '"2": 2,', '"1": 3,', '"id": 12345678901234567890,', '"price": 1.10,', '"name": "caf\\u00e9",',
        '"dup": 1,', '"dup": 2 // repeated key: json and jsonPath read the first', "}"], lines
    errors = console_errors(driver)
    assert not errors, errors


def test_markup_in_url_header_body_and_tenant_is_shown_as_text(server, driver):
    tenant = XSS
    target = "/xss?q=" + urllib.parse.quote(XSS, safe="<>=()")  # <img%20src=x%20onerror=alert(1)>
    server.request("POST", target, XSS.encode(), {"X-Evil": XSS, "Content-Type": "text/html"}, tenant=tenant)
    server.add_mock("/xss-mock", body=XSS.encode(), headers={"Content-Type": "text/html", "X-Evil": XSS}, tenant=tenant)
    server.request("GET", "/xss-mock", tenant=tenant)
    driver.get(server.url + "/catbird?tenant=" + urllib.parse.quote(tenant))
    wait_live(driver)
    assert [url for _, url in rows(driver)] == ["/xss-mock", target]
    for index in (0, 1):
        driver.find_elements(By.CSS_SELECTOR, "#rows tr")[index].click()
        wait(driver, lambda d: "Response body" in d.find_element(By.ID, "details").text
             and "Loading" not in d.find_element(By.ID, "details").text)
        time.sleep(0.3)
    driver.find_element(By.ID, "tab-mocks").click()
    time.sleep(0.3)
    page_text = driver.execute_script("return document.body.textContent")
    assert page_text.count(XSS) >= 4, "tenant, header, bodies shown as text"
    assert driver.find_element(By.ID, "tenant-title").text == XSS
    injected = driver.execute_script("return document.querySelectorAll('img[src=\"x\"], img[onerror]').length")
    assert injected == 0, "an <img> was created from data"
    no_alert(driver)
    errors = console_errors(driver)
    assert not errors, errors  # not even a CSP report: nothing tried to run


def test_bidi_controls_in_a_url_are_shown_escaped(server, driver):
    """Tester finding T15B-F15, the exact request: `/files/<U+202E>fdp.exe` (raw UTF-8 bytes on
    the wire) was shown as `/files/exe.pdf`. Each bidi control is now a marked `\\u202E`."""
    tenant = "bidi"
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(b"GET /files/\xe2\x80\xaefdp.exe HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 b"X-Catbird-Parallel-Id: bidi\r\nConnection: close\r\n\r\n")
    while sock.recv(65536):
        pass
    sock.close()
    driver.get(server.url + "/catbird?tenant=" + tenant)
    wait_live(driver)
    wait(driver, lambda d: len(rows(d)) == 1, message="the request never showed")
    assert [url for _, url in rows(driver)] == ["/files/\\u202Efdp.exe"]
    marks = driver.execute_script(
        "return Array.from(document.querySelectorAll('#rows tr td.url .escaped'), m => m.textContent)")
    assert marks == ["\\u202E"]
    driver.find_elements(By.CSS_SELECTOR, "#rows tr")[0].click()
    wait(driver, lambda d: "fdp.exe" in d.find_element(By.ID, "details-title").text)
    assert driver.find_element(By.ID, "details-title").text == "GET /files/\\u202Efdp.exe"
    page_text = driver.execute_script("return document.body.textContent")
    assert "\u202e" not in page_text, "no bidi control is put into the page as it is"


def test_bidi_controls_in_a_tenant_id_are_escaped_in_the_tab_title_and_tooltips(server, driver):
    """Tester finding tester29a-F2, the exact tenant: `shard-<U+202E>gpj.exe` was escaped in the
    page but put raw into the document's title (the tab read `Catbird · shard-exe.jpg`); a long
    id's tooltip in the tenant picker, and a row's problem tooltip, took it raw as well."""
    tenant = "shard-\u202egpj.exe"
    long_tenant = "x" * 70 + "\u202e" + "gpj.exe"
    server.request("GET", "/x", tenant=tenant)
    server.request("GET", "/y", tenant=long_tenant)
    driver.get(server.url + "/catbird?tenant=" + urllib.parse.quote(tenant))
    wait_live(driver)
    wait(driver, lambda d: len(rows(d)) == 1, message="the request never showed")
    assert driver.title == "Catbird · shard-\\u202Egpj.exe", repr(driver.title)
    wait(driver, lambda d: any(
        b.get_attribute("title").startswith("x" * 70) for b in d.find_elements(By.CSS_SELECTOR, "#tenants button")),
        message="the long id's button never showed")
    titles = driver.execute_script("return Array.from(document.querySelectorAll('[title]'), n => n.title)")
    assert any(("x" * 70 + "\\u202Egpj.exe") in title for title in titles), titles
    assert all("\u202e" not in title for title in titles + [driver.title]), titles
    # tester29c-F2: the "Clear journal" question put the id in raw.
    driver.find_element(By.ID, "clear").click()
    question = driver.find_element(By.ID, "clear-question").text
    assert question == "Delete every journal entry of shard-\\u202Egpj.exe?", repr(question)
    driver.find_element(By.ID, "clear-no").click()


def test_tenants_whose_ids_differ_only_by_canonically_equivalent_characters_are_told_apart(server, driver):
    """Tester finding tester38a-F4, the exact ids: `ui-shard-K` (the test process's) and
    `ui-shard-<U+212A KELVIN SIGN>` (the app's), and NFC `café` beside NFD `cafe<U+0301>`, are
    four tenants (ids compare by bytes), yet the picker and the title showed two pairs of equal
    names. An id not in NFC now shows its non-ASCII code points as `\\u212A`."""
    ids = {"ui-shard-K": "ui-shard-K", "ui-shard-\u212a": "ui-shard-\\u212A",
           "caf\u00e9": "caf\u00e9", "cafe\u0301": "cafe\\u0301"}
    for tenant in ids:
        server.request("GET", "/api/feed", tenant=tenant)
    driver.get(server.url + "/catbird")
    wait_live(driver)
    wait(driver, lambda d: len(tenant_names(d)) >= 5, message="the tenants never showed")
    names = tenant_names(driver)
    for shown in ids.values():
        assert names.count(shown) == 1, (shown, names)
    assert len(set(names)) == len(names), names
    driver.get(server.url + "/catbird?tenant=" + urllib.parse.quote("ui-shard-\u212a"))
    wait_live(driver)
    wait(driver, lambda d: len(rows(d)) == 1, message="the Kelvin tenant's request never showed")
    assert driver.find_element(By.ID, "tenant-title").text == "ui-shard-\\u212A"
    assert driver.title == "Catbird · ui-shard-\\u212A", repr(driver.title)


def test_line_terminators_in_a_url_and_invisible_characters_in_a_tenant_id_are_shown(server, driver):
    """Tester finding tester39a-F1 and F2, the exact values: `/p?x=<U+2029>` read `/p?x=` and
    `/p<U+2028>q` read `/p q` in the rows; `web-1` and `web<U+200B>-1` (a zero-width space) read
    alike in the picker. Line terminators are now marked `\\u2029`, and an id holding a
    character a reader may not see shows its non-ASCII code points as `\\u200B`."""
    for target in (b"/p?x=\xe2\x80\xa9", b"/p\xe2\x80\xa8q", b"/n\xc2\x85l"):
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: lines\r\nConnection: close\r\n\r\n")
            while sock.recv(65536):
                pass
    for tenant in ("web-1", "web\u200b-1", "web\u2060-1"):
        server.request("GET", "/x", tenant=tenant)
    driver.get(server.url + "/catbird?tenant=lines")
    wait_live(driver)
    wait(driver, lambda d: len(rows(d)) == 3, message="the three requests never showed")
    assert sorted(url for _, url in rows(driver)) == sorted(["/n\\u0085l", "/p\\u2028q", "/p?x=\\u2029"]), rows(driver)
    page_text = driver.execute_script("return document.body.textContent")
    assert not any(char in page_text for char in "\u2028\u2029\u0085"), "no line terminator is put into the page as it is"
    wait(driver, lambda d: len(tenant_names(d)) >= 5, message="the tenants never showed")
    names = tenant_names(driver)
    for shown in ("web-1", "web\\u200B-1", "web\\u2060-1"):
        assert names.count(shown) == 1, (shown, names)


def test_control_characters_in_headers_tenant_ids_and_bodies_are_shown_and_copied_escaped(server, driver):
    """Regression (tester findings tester56b-F1 and F2, their exact values): a header value
    `a<ESC>[31mred<ESC>[0m<BEL><DEL>` was shown raw (an empty box or nothing for each control)
    and copied as curl with the raw bytes; tenant ids `t<ESC>[33myellow<BEL>` and `t[33myellow`
    read alike in the picker and the tab title; a UTF-8 body holding U+009B and U+0080 was shown
    as text; `/h?q=<U+2028>x` was copied as curl with the U+2028 raw (a space in the box). Each
    control is now marked `\\u001B` on the page, a body holding one is shown as hex, and the
    command writes them as `\\xHH` in $'…', which, run, journals the same bytes."""
    esc_tenant = "t\x1b[33myellow\x07"
    requests = [
        b"GET /ctl HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: ctl\r\nX-Esc: a\x1b[31mred\x1b[0m\x07\x7f\r\nConnection: close\r\n\r\n",
        b"GET /h?q=\xe2\x80\xa8x HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: ctl\r\nConnection: close\r\n\r\n",
        b"POST /utf8c1 HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: ctl\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n"
        b"Connection: close\r\n\r\n" + "abc\u009b31mred\u0080x".encode(),
        b"GET /b HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: " + esc_tenant.encode() + b"\r\nConnection: close\r\n\r\n",
        b"GET /b HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: t[33myellow\r\nConnection: close\r\n\r\n",
    ]
    for request in requests:
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(request)
            while sock.recv(65536):
                pass
    _, page = server.json("GET", "/catbird/api/requests", tenant="ctl")
    sent = {entry["url"]: entry for entry in page["requests"]}
    assert sorted(sent) == ["/ctl", "/h?q=\u2028x", "/utf8c1"], sorted(sent)
    driver.get(server.url + "/catbird?tenant=ctl")
    wait_live(driver)
    wait(driver, lambda d: len(rows(d)) == 3, message="the three requests never showed")
    header = sent["/ctl"]["request"]["headers"]["X-Esc"]
    assert header == "a\x1b[31mred\x1b[0m\x07\x7f", repr(header)
    driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{sent["/ctl"]["id"]}"]').click()
    wait(driver, lambda d: d.find_element(By.ID, "details").get_attribute("data-entry-id") == str(sent["/ctl"]["id"]), message="details")
    details = driver.find_element(By.ID, "details").text
    assert "a\\u001B[31mred\\u001B[0m\\u0007\\u007F" in details, details
    page_text = driver.execute_script("return document.body.textContent")
    assert not any(char in page_text for char in "\x1b\x07\x7f\u2028"), "no control is put into the page as it is"
    command = copied_curl(driver, sent["/ctl"]["id"])
    assert "$'X-Esc: a\\x1b[31mred\\x1b[0m\\x07\\x7f'" in command, command
    url_command = copied_curl(driver, sent["/h?q=\u2028x"]["id"])
    assert "\u2028" not in url_command and "\\xe2\\x80\\xa8" in url_command, url_command
    for copied in (command, url_command):
        run = subprocess.run(["bash", "-c", copied + " -s -o /dev/null -m 10"], capture_output=True)
        assert run.returncode == 0, (copied, run.returncode, run.stderr)
    _, page = server.json("GET", "/catbird/api/requests", tenant="ctl")
    replayed = [entry for entry in page["requests"] if entry["id"] not in {e["id"] for e in sent.values()}]
    assert sorted(e["url"] for e in replayed) == ["/ctl", "/h?q=\u2028x"], replayed
    assert [e["request"]["headers"].get("X-Esc") for e in replayed if e["url"] == "/ctl"] == [header], replayed
    driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{sent["/utf8c1"]["id"]}"]').click()
    wait(driver, lambda d: d.find_element(By.ID, "details").get_attribute("data-entry-id") == str(sent["/utf8c1"]["id"]), message="details")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#details pre.hex"), message="the body holding C1 controls shown as hex")
    wait(driver, lambda d: len(tenant_names(d)) >= 3, message="the tenants never showed")
    names = tenant_names(driver)
    assert "t\\u001B[33myellow\\u0007" in names and "t[33myellow" in names, names
    driver.get(server.url + "/catbird?tenant=" + urllib.parse.quote(esc_tenant))
    wait_live(driver)
    assert driver.title == "Catbird · t\\u001B[33myellow\\u0007", repr(driver.title)
    errors = console_errors(driver)
    assert not errors, errors


def test_a_huge_method_or_header_name_leaves_the_other_columns_in_view(server, driver):
    """Regression (tester finding tester56b-F3, its requests): a 9,000-byte method made the
    method column 9,000 characters wide, every row's URL and status off to the right, and a
    20,000-byte header name hid the values of the entry's other headers. The method is clipped
    as the URL is, a name cut at its column's width, both whole on hover."""
    for request in (
        b"M" * 9000 + b" /m HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: huge\r\nConnection: close\r\n\r\n",
        b"GET /n HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: huge\r\n" + b"N" * 20000 + b": v\r\nConnection: close\r\n\r\n",
        b"GET /ok HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: huge\r\nConnection: close\r\n\r\n",
    ):
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(request)
            while sock.recv(65536):
                pass
    driver.get(server.url + "/catbird?tenant=huge")
    wait_live(driver)
    wait(driver, lambda d: len(rows(d)) == 3, message="the three requests never showed")
    width = driver.execute_script("return document.documentElement.clientWidth")
    for url in ("/ok", "/m"):
        right = driver.execute_script(
            "const row = Array.from(document.querySelectorAll('#rows tr')).find(tr => tr.children[2].textContent === arguments[0]);"
            " return row.children[3].getBoundingClientRect().right", url)
        assert right <= width, (url, right, width)
    titles = [cell.get_attribute("title") for cell in driver.find_elements(By.CSS_SELECTOR, "#rows td:nth-child(2)")]
    assert "M" * 9000 in titles, "the whole method on hover"
    row = driver.execute_script("return Array.from(document.querySelectorAll('#rows tr')).find(tr => tr.children[2].textContent === '/n')")
    row.click()
    wait(driver, lambda d: d.find_element(By.ID, "details").get_attribute("data-entry-id") is not None, message="details")
    wait(driver, lambda d: "X-Catbird-Parallel-Id" in d.find_element(By.ID, "details").text, message="the headers")
    panel = driver.execute_script("return document.getElementById('details').getBoundingClientRect().right")
    values = driver.execute_script(
        "return Array.from(document.querySelectorAll('#details-body table tr'))"
        ".filter(tr => tr.children[0].textContent === 'Host' || tr.children[0].textContent === 'X-Catbird-Parallel-Id')"
        ".map(tr => { const r = tr.children[1].getBoundingClientRect(); return [tr.children[1].textContent, r.left, r.width]; })")
    assert len(values) == 2, values
    for text, left, cell_width in values:
        assert cell_width > 0 and left < panel, (text, left, cell_width, panel)
    errors = console_errors(driver)
    assert not errors, errors


def test_a_tenant_named_default_tenant_is_not_shown_as_the_default_tenant(server, driver):
    """Tester finding tester39a-F12: a tenant whose id is the text `default tenant` read exactly
    like the default tenant (id "") in the picker, the title bar and the tab title. Such an id
    (and one in quotes) is now shown in quotes; the default tenant is still `default tenant`."""
    server.request("GET", "/dt")
    for tenant in ("default tenant", '"default tenant"'):
        server.request("GET", "/dt", tenant=tenant)
    driver.get(server.url + "/catbird?tenant=default%20tenant")
    wait_live(driver)
    wait(driver, lambda d: len(rows(d)) == 1, message="the named tenant's request never showed")
    assert driver.find_element(By.ID, "tenant-title").text == '"default tenant"'
    assert driver.title == 'Catbird · "default tenant"', repr(driver.title)
    wait(driver, lambda d: len(tenant_names(d)) >= 3, message="the tenants never showed")
    names = tenant_names(driver)
    for shown in ("default tenant", '"default tenant"', '""default tenant""'):
        assert names.count(shown) == 1, (shown, names)
    driver.get(server.url + "/catbird")
    wait_live(driver)
    assert driver.title == "Catbird · default tenant", repr(driver.title)


def test_copy_as_curl_of_a_request_journaled_without_a_method_sends_a_request_line(server, driver):
    """Tester finding tester38a-F5: libmicrohttpd's 431 (a 40,000-byte header) is journaled with
    method `""`, and its command was `curl -X '' …`, which sent a request line starting with a
    space (curl exit 52, nothing journaled). It now has no `-X`, says so, and run journals the
    request again; an entry with no target (the request line never arrived) says there is
    nothing to replay."""
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n")
        try:
            while sock.recv(65536):
                pass
        except ConnectionResetError:
            pass  # the 431 is sent and the connection closed with the head still unread
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"GET /abc")
        # The server's --head-timeout (2 s, looked at once a second) ends it with a 408 and no request line.
        deadline = time.monotonic() + 15
        while True:
            _, page = server.json("GET", "/catbird/api/requests")
            by_url = {entry["url"]: entry for entry in page["requests"]}
            if "" in by_url or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    assert by_url["/big"]["method"] == "" and by_url["/big"]["response"]["status"] == 431, page
    assert by_url[""]["method"] == "" and by_url[""]["response"]["status"] == 408, page
    driver.get(server.url + "/catbird")
    wait_live(driver)
    command = copied_curl(driver, by_url["/big"]["id"])
    assert "-X" not in command and command.startswith("curl '" + server.url + "/big'"), command
    assert "# the journal has no method for this request" in command, command
    run = subprocess.run(["bash", "-c", command + " -s -o /dev/null -m 10"], capture_output=True)
    assert run.returncode == 0, (command, run.returncode, run.stderr)
    _, page = server.json("GET", "/catbird/api/requests")
    replayed = [entry for entry in page["requests"] if entry["id"] not in (by_url["/big"]["id"], by_url[""]["id"])]
    assert [(entry["method"], entry["url"]) for entry in replayed] == [("GET", "/big")], replayed
    nothing = copied_curl(driver, by_url[""]["id"])
    assert nothing.startswith("# nothing to replay"), nothing
    # tester39a-F11: a target whose byte was not UTF-8 is journaled as `%XX`; the command says it
    # sends the escapes, another request.
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"GET /a\xff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        while sock.recv(65536):
            pass
    _, page = server.json("GET", "/catbird/api/requests")
    [escaped] = [entry for entry in page["requests"] if entry["url"] == "/a%FF"]
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'#rows tr[data-id="{escaped["id"]}"]'), message="the /a%FF row")
    command = copied_curl(driver, escaped["id"])
    assert "# the request-target held bytes that are not UTF-8, or a NUL, which the journal wrote as %XX" in command, command
    errors = console_errors(driver)
    assert not errors, errors


def test_a_charset_inside_another_parameters_quotes_is_not_read(server, driver):
    """Tester finding tester29a-F1, the exact headers: the page read the `;charset=latin1` inside
    a quoted parameter (and an unterminated quote) and showed `caf\\xe9` as `café`, while the
    journal and the HAR export give no text. Parameters are now read as the server reads them
    (RFC 9110 quoted strings), so those bodies are binary; a quoted `;` before a real charset,
    and ISO-8859-1's alias `iso_8859-1:1987`, still read as ISO-8859-1."""
    for target, content_type in [
        ("/inside", 'text/plain; foo="a;charset=latin1"'),
        ("/escaped", 'text/plain; foo="a\\";charset=latin1"'),
        ("/unterminated", 'text/plain; charset="latin1'),
        ("/after", 'text/plain; foo="a;b"; charset=latin1'),
        ("/alias", "text/plain; charset=ISO_8859-1:1987"),
    ]:
        server.request("POST", target, b"caf\xe9", {"Content-Type": content_type})
    driver.get(server.url + "/catbird")
    wait_live(driver)
    wait(driver, lambda d: len(rows(d)) == 5, message="the requests never showed")
    shown = {url: body_view(driver, entry_id)[1:3] for entry_id, url in rows(driver)}
    for target in ["/inside", "/escaped", "/unterminated"]:
        assert shown[target][0] == "hex", (target, shown)
    assert shown["/after"] == ["", "café"], shown
    assert shown["/alias"] == ["", "café"], shown
    _, journal = server.json("GET", "/catbird/api/requests?limit=10")
    texts = {e["url"]: e["request"].get("body") for e in journal["requests"]}
    assert texts == {"/inside": None, "/escaped": None, "/unterminated": None, "/after": "café", "/alias": "café"}, texts
    errors = console_errors(driver)
    assert not errors, errors


def test_mocks_that_differ_by_body_pattern_show_it(server, driver):
    """Tester finding try8a F5: two POST /login mocks differing only by their body pattern read
    the same in the Mocks tab and in the entry's "Answered by mock"."""
    for body in ({"kind": "jsonPath", "value": "$.login", "equalTo": "john"}, {"kind": "contains", "value": "mary"}):
        status, _ = server.json("POST", "/catbird/api/mocks", {
            "type": "update", "pattern": {"method": "POST", "url": {"kind": "equal", "value": "/login"}, "headers": {}, "body": body},
            "response": {"status": 200, "headers": {}, "body": ""}})
        assert status == 201, status
    server.request("POST", "/login", b'{"login":"john"}', {"Content-Type": "application/json"})
    driver.get(server.url + "/catbird")
    wait_live(driver)
    driver.find_element(By.ID, "tab-mocks").click()
    cells = lambda d: [[td.text for td in tr.find_elements(By.TAG_NAME, "td")] for tr in d.find_elements(By.CSS_SELECTOR, "#mock-rows tr")]
    wait(driver, lambda d: len(cells(d)) == 2, message="two mocks listed")
    assert [row[4] for row in cells(driver)] == ['jsonPath $.login = "john"', "contains mary"], cells(driver)
    driver.find_element(By.ID, "tab-journal").click()
    wait(driver, lambda d: [url for _, url in rows(d)] == ["/login"])
    driver.find_elements(By.CSS_SELECTOR, "#rows tr")[0].click()
    wait(driver, lambda d: "body pattern" in d.find_element(By.ID, "details").text, message="answering mock shown")
    assert 'jsonPath $.login = "john"' in driver.find_element(By.ID, "details").text
    errors = console_errors(driver)
    assert not errors, errors


def test_a_jsonpath_patterns_equalto_is_shown_as_json(server, driver):
    # tester22a-F6, the finding's five mocks (and `1` against `"1"`): the Mocks tab showed
    # `jsonPath $.a = [object Object]`, `= john`, `= "john"`, and `jsonPath $.a` for both
    # `equalTo: null` (the field must be null) and no `equalTo` (any value); `1` read like `"1"`.
    bodies = [({"x": [1, "<i>"]},), ("john",), ('"john"',), (None,), (), (1,), ("1",)]
    for equal_to in bodies:
        body = {"kind": "jsonPath", "value": "$.a", **({"equalTo": equal_to[0]} if equal_to else {})}
        status, _ = server.json("POST", "/catbird/api/mocks", {
            "type": "update", "pattern": {"method": "POST", "url": {"kind": "equal", "value": "/s"}, "headers": {}, "body": body},
            "response": {"status": 200}}, tenant="m2")
        assert status == 201, status
    server.request("POST", "/s", b'{"a":null}', {"Content-Type": "application/json"}, tenant="m2")
    driver.get(server.url + "/catbird?tenant=m2")
    wait_live(driver)
    driver.find_element(By.ID, "tab-mocks").click()
    cells = lambda d: [tr.find_elements(By.TAG_NAME, "td")[4].text for tr in d.find_elements(By.CSS_SELECTOR, "#mock-rows tr")]
    wait(driver, lambda d: len(cells(d)) == len(bodies), message="the mocks listed")
    assert cells(driver) == ['jsonPath $.a = {"x":[1,"<i>"]}', 'jsonPath $.a = "john"', 'jsonPath $.a = "\\"john\\""',
                             "jsonPath $.a = null", "jsonPath $.a (any value)", "jsonPath $.a = 1", 'jsonPath $.a = "1"'], cells(driver)
    # The request `{"a":null}` was answered by the `equalTo: null` mock: its details say so.
    driver.find_element(By.ID, "tab-journal").click()
    driver.find_element(By.CSS_SELECTOR, "#rows tr").click()
    wait(driver, lambda d: "body pattern" in d.find_element(By.ID, "details").text, message="answering mock shown")
    assert "jsonPath $.a = null" in driver.find_element(By.ID, "details").text
    errors = console_errors(driver)
    assert not errors, errors


def test_the_mocks_tab_label_follows_mocks_added_after_the_page_opened(server, driver):
    # tester22a-F5 (its second part), the finding's steps: /catbird?tenant=lbl ("Mocks (0)"), 3
    # mocks added by the API and one request a mock answers: 7 s later the label still said
    # "Mocks (0)" while the tenant list said "1 request · 3 mocks". Mock calls journal nothing,
    # so the label is read again with the tenant list (every 5 s).
    driver.get(server.url + "/catbird?tenant=lbl")
    wait_live(driver)
    label = lambda d: d.find_element(By.ID, "tab-mocks").text
    wait(driver, lambda d: label(d) == "Mocks (0)", message="no mocks")
    for index in range(3):
        server.add_mock(f"/lbl/{index}", tenant="lbl")
    server.request("GET", "/lbl/0", tenant="lbl")
    wait(driver, lambda d: label(d) == "Mocks (3)", timeout=7, message=f"label still {label(driver)!r}")
    assert driver.find_element(By.ID, "journal-panel").is_displayed(), "the journal stays the tab shown"
    errors = console_errors(driver)
    assert not errors, errors


def test_one_hundred_thousand_entries_open_in_under_a_second(server, driver):
    started = time.monotonic()
    flood(server, 100_000, "bulk")
    _, newest = server.json("GET", "/catbird/api/requests?order=newest&limit=1&bodies=false", tenant="bulk")
    total = {t["id"]: t["requests"] for t in server.json("GET", "/catbird/api/tenants")[1]["tenants"]}["bulk"]
    assert total == 100_000, total
    print(f"    journaled 100,000 requests in {time.monotonic() - started:.1f} s")
    newest_id = newest["requests"][0]["id"]
    driver.get(server.url + "/catbird?tenant=bulk")
    wait(driver, lambda d: d.execute_script("return document.documentElement.dataset.firstPageMs"), timeout=10)
    opened_ms = int(driver.execute_script("return document.documentElement.dataset.firstPageMs"))
    shown = rows(driver)
    assert shown[0][0] == newest_id, (shown[0], newest_id)
    assert len(shown) <= 500
    print(f"    newest page shown {opened_ms} ms after navigation started")
    assert opened_ms < 1000, f"took {opened_ms} ms"
    # Paging back works from there, and the page stays bounded.
    for _ in range(6):
        before = len(rows(driver))
        driver.find_element(By.ID, "older").click()
        wait(driver, lambda d: len(rows(d)) != before or not d.find_element(By.ID, "notice").get_attribute("hidden"))
    ids = [row_id for row_id, _ in rows(driver)]
    assert len(ids) == 500 and ids == sorted(ids, reverse=True), len(ids)
    assert ids[-1] < newest_id - 500
    errors = console_errors(driver)
    assert not errors, errors


def test_a_burst_of_more_than_a_poll_keeps_the_details_open_and_the_newest_five_hundred_rows(server, driver):
    # tester22a-F9, the finding's input: tenant `busy`, one request, its details and Copy as curl
    # open, 200 more requests (201 rows), then a burst of 1,000 over 8 connections. A live poll
    # whose answer said `hasMore` reloaded the view: the details and the curl box closed and the
    # view held the newest 100 rows. Now the details stay open and the view holds the newest 500,
    # contiguous, with Load older paging back from there.
    tenant = "busy"
    driver.get(server.url + "/catbird?tenant=" + tenant)
    wait_live(driver)
    server.request("GET", "/first", tenant=tenant)
    wait(driver, lambda d: len(rows(d)) == 1, message="first row")
    [(first_id, _)] = rows(driver)
    copied_curl(driver, first_id)
    for index in range(200):
        server.request("GET", f"/more/{index}", tenant=tenant)
    wait(driver, lambda d: len(rows(d)) == 201, message="201 rows")
    flood(server, 1000, tenant)
    _, newest = server.json("GET", "/catbird/api/requests?order=newest&limit=1000&bodies=false", tenant=tenant)
    newest_ids = [entry["id"] for entry in newest["requests"]][:500]
    wait(driver, lambda d: rows(d) and rows(d)[0][0] == newest_ids[0], timeout=15, message="burst shown")
    shown = [row_id for row_id, _ in rows(driver)]
    assert shown == newest_ids, (len(shown), shown[:3], shown[-3:], newest_ids[-3:])
    assert driver.find_element(By.ID, "details").is_displayed(), "the details panel was closed"
    assert driver.find_element(By.ID, "details-title").text == "GET /first"
    assert driver.find_element(By.ID, "curl-text").is_displayed(), "the curl box was closed"
    # Load older goes on from the oldest row shown, with no entry skipped.
    driver.find_element(By.ID, "older").click()
    wait(driver, lambda d: d.find_element(By.ID, "notice").is_displayed(), message="older page")
    older = newest["requests"][500:600]
    assert [row_id for row_id, _ in rows(driver)] == newest_ids[100:] + [entry["id"] for entry in older], rows(driver)[-3:]
    errors = console_errors(driver)
    assert not errors, errors


def test_reading_further_down_keeps_its_place_as_rows_arrive(server, driver):
    for index in range(80):
        server.request("GET", f"/r/{index}")
    driver.get(server.url + "/catbird")
    wait_live(driver)
    driver.execute_script("window.scrollTo(0, 1500)")
    first_visible = ("const row = [...document.querySelectorAll('#rows tr')].find(r => r.getBoundingClientRect().top >= 0);"
                     "return [row.children[2].textContent, Math.round(row.getBoundingClientRect().top)]")
    before = driver.execute_script(first_visible)
    for index in range(5):
        server.request("GET", f"/new/{index}")
    wait(driver, lambda d: rows(d)[0][1] == "/new/4", timeout=3)
    assert driver.execute_script(first_visible) == before, "the row being read did not move"


def test_pause_keeps_position_and_clear_asks_first(server, driver):
    for i in range(3):
        server.request("GET", f"/p/{i}")
    driver.get(server.url + "/catbird")
    wait_live(driver)
    driver.find_element(By.ID, "pause").click()
    server.request("GET", "/while-paused")
    wait(driver, lambda d: "1 new" in d.find_element(By.ID, "status").text, timeout=3)
    assert [url for _, url in rows(driver)] == ["/p/2", "/p/1", "/p/0"]
    driver.find_element(By.ID, "pause").click()
    wait(driver, lambda d: [url for _, url in rows(d)][0] == "/while-paused")
    driver.find_element(By.ID, "clear").click()
    assert driver.find_element(By.ID, "clear-confirm").is_displayed()
    driver.find_element(By.ID, "clear-no").click()
    assert len(rows(driver)) == 4
    driver.find_element(By.ID, "clear").click()
    driver.find_element(By.ID, "clear-yes").click()
    wait(driver, lambda d: not rows(d))
    _, page = server.json("GET", "/catbird/api/requests")
    assert page["requests"] == []
    errors = console_errors(driver)
    assert not errors, errors


def test_resume_after_more_than_five_hundred_arrivals_counts_them_and_shows_the_newest_five_hundred(server, driver):
    # tester46c-F2, the finding's input: 50 rows, Pause, 1,200 arrive, Resume. The status said
    # "many new" past ~500 arrivals and Resume loaded the newest 100 afresh (the held rows gone),
    # where the same burst unpaused shows the newest 500. Now every arrival is counted and Resume
    # shows the newest 500, as a live burst is shown.
    tenant = "pz5"
    for index in range(50):
        server.request("GET", f"/pre/{index}", tenant=tenant)
    open_paused(driver, server, tenant)
    assert len(rows(driver)) == 50, "50 rows"
    flood(server, 1200, tenant)
    wait(driver, lambda d: d.find_element(By.ID, "status").text == "paused · 1200 new", timeout=15,
         message="every arrival counted")
    assert len(rows(driver)) == 50, "held while paused"
    driver.find_element(By.ID, "pause").click()
    _, newest = server.json("GET", "/catbird/api/requests?order=newest&limit=600&bodies=false", tenant=tenant)
    newest_ids = [entry["id"] for entry in newest["requests"]][:500]
    wait(driver, lambda d: [row_id for row_id, _ in rows(d)] == newest_ids, timeout=10, message="the newest 500 after Resume")
    # Load older goes on from the oldest row shown, with no entry skipped.
    driver.find_element(By.ID, "older").click()
    wait(driver, lambda d: d.find_element(By.ID, "notice").is_displayed(), message="older page")
    older = [entry["id"] for entry in newest["requests"][500:600]]
    assert [row_id for row_id, _ in rows(driver)] == newest_ids[100:] + older, rows(driver)[-3:]
    errors = console_errors(driver)
    assert not errors, errors


def test_resume_on_an_empty_journal_after_a_burst_offers_the_older_arrivals(server, driver):
    # tester47a-F10: Pause on an empty journal, 700 arrive, Resume: the newest 500 were shown
    # and no Load older reached the other 200.
    tenant = "pz-empty"
    open_paused(driver, server, tenant)
    flood(server, 700, tenant)
    wait(driver, lambda d: d.find_element(By.ID, "status").text == "paused · 700 new", timeout=15, message="every arrival counted")
    driver.find_element(By.ID, "pause").click()
    _, newest = server.json("GET", "/catbird/api/requests?order=newest&limit=700&bodies=false", tenant=tenant)
    ids = [entry["id"] for entry in newest["requests"]]
    wait(driver, lambda d: [row_id for row_id, _ in rows(d)] == ids[:500], timeout=10, message="the newest 500")
    assert driver.find_element(By.ID, "older").is_displayed(), "Load older is offered"
    driver.find_element(By.ID, "older").click()
    wait(driver, lambda d: [row_id for row_id, _ in rows(d)] == ids[100:600], message="the next older page")
    errors = console_errors(driver)
    assert not errors, errors


def body_view(driver, entry_id):
    """Opens the entry and answers its request body's notes and shown text (or hex) once loaded."""
    driver.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{entry_id}"]').click()
    wait(driver, lambda d: d.execute_script(
        "const s = document.querySelectorAll('#details-body > section')[1]; return s && s.querySelector('pre')"),
        message="request body shown")
    return driver.execute_script("""
        const s = document.querySelectorAll('#details-body > section')[1];
        return [Array.from(s.querySelectorAll('p.body-note'), p => p.textContent),
                s.querySelector('pre').className, s.querySelector('pre').textContent,
                Array.from(s.querySelectorAll('button'), b => b.textContent)]""")


def test_a_body_the_journal_cut_offers_only_what_it_kept_and_stays_text(server, driver):
    # tester22a-F12, the finding's body: "a" and 40,000 × "é" (78.1 KiB of UTF-8), default
    # --journal-body-limit 64 KiB, cut inside an "é". The preview held every kept byte yet offered
    # "Show the whole body", which fetched the same 64 KiB, read them as the whole body, and showed
    # hex. Now nothing more is offered. With a limit over 64 KiB (100 KiB) the rest that was kept is
    # offered, and shown as text.
    text = "a" + "é" * 40000
    server.request("POST", "/cut", text.encode(), {"Content-Type": "text/plain; charset=utf-8"}, tenant="cut")
    driver.get(server.url + "/catbird?tenant=cut")
    wait_live(driver)
    notes, kind, shown, buttons = body_view(driver, rows(driver)[0][0])
    assert notes[0] == "The journal kept only the first 64.0 KiB of 78.1 KiB (--journal-body-limit).", notes
    assert (kind, shown) == ("", "a" + "é" * 32767), (kind, shown[:20], len(shown))  # 65,536 bytes: the last "é" is cut
    assert buttons == ["Download"], buttons
    larger = Server("--journal-body-limit", "100kb")
    try:
        text = "a" + "é" * 60000  # 117.2 KiB, cut by the journal at 102,400 bytes, inside an "é"
        larger.request("POST", "/cut", text.encode(), {"Content-Type": "text/plain; charset=utf-8"}, tenant="cut")
        driver.get(larger.url + "/catbird?tenant=cut")
        wait_live(driver)
        notes, kind, shown, buttons = body_view(driver, rows(driver)[0][0])
        assert notes == ["The journal kept only the first 100.0 KiB of 117.2 KiB (--journal-body-limit).",
                         "117.2 KiB · text/plain; charset=utf-8 · showing the first 64.0 KiBShow all 100.0 KiB keptDownload"], notes
        assert (kind, shown) == ("", "a" + "é" * 32767), (kind, shown[:20], len(shown))
        driver.find_element(By.XPATH, "//button[text()='Show all 100.0 KiB kept']").click()
        wait(driver, lambda d: d.execute_script(
            "return document.querySelectorAll('#details-body > section')[1].querySelectorAll('button').length") == 1,
            message="all kept bytes shown (only Download left)")
        kind, shown = driver.execute_script(
            "const pre = document.querySelectorAll('#details-body > section')[1].querySelector('pre'); return [pre.className, pre.textContent]")
        assert (kind, shown) == ("", "a" + "é" * 51199), (kind, shown[:20], len(shown))
        errors = console_errors(driver)
        assert not errors, errors
    finally:
        larger.stop()


def test_a_latin1_text_body_is_shown_as_text_as_the_journal_reads_it(server, driver):
    # tester22a-F20, the finding's body: `caf\xe9` declared `charset=iso-8859-1` (the journal's
    # `body` is "café") was shown as "binary: 4 B" and hex. Read byte by byte as the journal does;
    # a quoted alias too; a byte 80–9F is one of ISO-8859-1's C1 controls, so that body is binary.
    server.request("POST", "/latin1", b"caf\xe9", {"Content-Type": "text/plain; charset=iso-8859-1"})
    server.request("POST", "/quoted", b"\xe0 bient\xf4t", {"Content-Type": 'text/plain; charset="Latin1"'})
    server.request("POST", "/c1", b"caf\x80", {"Content-Type": "text/plain; charset=iso-8859-1"})
    driver.get(server.url + "/catbird")
    wait_live(driver)
    shown = {url: body_view(driver, entry_id)[1:3] for entry_id, url in rows(driver)}
    assert shown["/latin1"] == ["", "café"], shown
    assert shown["/quoted"] == ["", "à bientôt"], shown
    assert shown["/c1"][0] == "hex", shown
    errors = console_errors(driver)
    assert not errors, errors


def test_five_megabyte_body_shows_a_preview_and_the_whole_on_demand(server, driver):
    text = ("0123456789abcdef" * 64 + "\n") * 5000  # ~5 MB of text
    server.request("POST", "/upload", text.encode(), {"Content-Type": "text/plain"})
    driver.get(server.url + "/catbird")
    wait_live(driver)
    driver.find_element(By.CSS_SELECTOR, "#rows tr").click()
    wait(driver, lambda d: "showing the first 64.0 KiB" in d.find_element(By.ID, "details").text)
    shown = driver.execute_script("return document.querySelector('#details pre').textContent.length")
    assert shown == 65536, shown
    # The page still answers at once (it did not freeze on the body).
    started = time.monotonic()
    driver.execute_script("return 1")
    assert time.monotonic() - started < 1
    driver.find_element(By.XPATH, "//button[text()='Show the whole body']").click()
    wait(driver, lambda d: d.execute_script("return document.querySelector('#details pre').textContent.length") == len(text),
         timeout=20)
    errors = console_errors(driver)
    assert not errors, errors


# A 1x1 PNG (one red pixel).
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")


def test_image_and_binary_bodies_show_as_an_image_and_a_hex_preview(server, driver):
    server.add_mock("/logo.png", body=PNG, headers={"Content-Type": "image/png"})
    server.request("GET", "/logo.png")
    server.request("PUT", "/blob", bytes(range(256)) * 4, {"Content-Type": "application/octet-stream"})
    driver.get(server.url + "/catbird")
    wait_live(driver)
    driver.find_elements(By.CSS_SELECTOR, "#rows tr")[1].click()
    wait(driver, lambda d: d.execute_script("const i = document.querySelector('#details img.body-image'); return i && i.complete && i.naturalWidth"),
         message="the PNG is shown")
    assert driver.execute_script("return document.querySelector('#details img.body-image').naturalWidth") == 1
    # Its blob URL is given back once the image is shown (it was kept, with the bytes, until the
    # page reloaded): a second image from the same URL fails to load, the first stays.
    image_url = driver.execute_script("return document.querySelector('#details img.body-image').src")
    second_load = driver.execute_async_script(
        "const done = arguments[1]; const again = new Image();"
        "again.onload = () => done('loaded'); again.onerror = () => done('refused');"
        "again.src = arguments[0]", image_url)
    assert second_load == "refused", second_load
    assert driver.execute_script("return document.querySelector('#details img.body-image').naturalWidth") == 1
    driver.find_elements(By.CSS_SELECTOR, "#rows tr")[0].click()
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#details pre.hex"), message="hex preview")
    hex_text = driver.find_element(By.CSS_SELECTOR, "#details pre.hex").text
    assert hex_text.startswith("00000000  00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"), hex_text[:80]
    assert "binary: 1.0 KiB" in driver.find_element(By.ID, "details").text
    errors = [e for e in console_errors(driver) if image_url not in e["message"]]  # the second load's own
    assert not errors, errors


# Tester finding tester46c-F3, its bodies: an SVG with a script, sent as image/svg+xml (and in
# other spellings), and HTML sent as "image/png, text/html", were shown as images from blob URLs
# of the page's origin; opened in a tab of their own, their scripts ran there, read every
# tenant and dropped them all. Only raster image bytes are shown as an image now; these as text.
XSS_SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle r="18" cx="20" cy="20" fill="red"/>'
           b"<script>fetch(location.origin+'/catbird/api/tenants?all=true',{method:'DELETE'})</script></svg>")
XSS_HTML = b"<html><body><script>document.title='RAN'</script></body></html>"


def test_an_svg_or_html_body_sent_as_an_image_is_shown_as_text_not_as_a_blob_image(server, driver):
    bodies = [("image/svg+xml", XSS_SVG), ("Image/SVG+XML", XSS_SVG), ("image/svg+xml; charset=utf-8", XSS_SVG),
              ("image/png, text/html", XSS_HTML), ("image/png", XSS_HTML)]
    for index, (content_type, body) in enumerate(bodies):
        server.request("POST", f"/upload/{index}", body, {"Content-Type": content_type}, tenant="xss")
    server.request("GET", "/logo.png", None, None, tenant="xss")
    driver.get(server.url + "/catbird?tenant=xss")
    wait_live(driver)
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rows tr")) == len(bodies) + 1, message="every row")
    rows = driver.find_elements(By.CSS_SELECTOR, "#rows tr")
    for row in range(1, len(bodies) + 1):
        rows[row].click()
        target = f"/upload/{len(bodies) - row}"
        wait(driver, lambda d: target in d.find_element(By.ID, "details").text and "<script>" in d.find_element(By.ID, "details").text,
             message=f"{target}'s body shown as text")
        images = driver.execute_script("return Array.from(document.querySelectorAll('#details img')).map(i => i.src)")
        assert images == [], (target, images)
    # tester47a-F12: PNG's signature and then HTML was a broken image, its bytes nowhere: shown as bytes.
    server.request("POST", "/polyglot", PNG[:8] + XSS_HTML, {"Content-Type": "image/png"}, tenant="xss")
    wait(driver, lambda d: d.execute_script("return document.querySelector('#rows tr').children[2].textContent") == "/polyglot",
         message="the polyglot's row")
    driver.find_elements(By.CSS_SELECTOR, "#rows tr")[0].click()
    wait(driver, lambda d: "not an image the browser can show" in d.find_element(By.ID, "details").text, message="shown as bytes")
    hex_text = driver.find_element(By.CSS_SELECTOR, "#details pre.hex").text
    assert hex_text.startswith("00000000  89 50 4e 47 0d 0a 1a 0a 3c 68 74 6d 6c 3e"), hex_text[:80]
    errors = [e for e in console_errors(driver) if "blob:" not in e]
    assert not errors, errors


def test_a_long_url_takes_at_most_three_lines_of_its_row_and_is_whole_on_hover_and_in_the_details(server, driver):
    """Tester finding tester43a-F4, its requests: five feed pages, a 6 KB analytics beacon
    (`/analytics/collect?p0=value0000&…&p399=value0399`) and a profile call; in a 1600×1000
    window the beacon's row was 937 px tall, taller than the window, and pushed the rows after it
    off screen. Now its URL shows three lines at most, the whole of it on hover and in the details."""
    tenant = "longurl"
    beacon = "/analytics/collect?" + "&".join(f"p{i}=value{i:04d}" for i in range(400))
    for page in range(5):
        server.request("GET", f"/api/feed?page={page}", tenant=tenant)
    server.request("GET", beacon, tenant=tenant)
    server.request("GET", "/api/profile", tenant=tenant)
    driver.set_window_size(1600, 1000)
    driver.get(server.url + "/catbird?tenant=" + tenant)
    wait_live(driver)
    wait(driver, lambda d: len(rows(d)) == 7, message="the seven requests never showed")
    heights = driver.execute_script(
        "return Array.from(document.querySelectorAll('#rows tr'), tr => tr.getBoundingClientRect().height)")
    line = driver.execute_script(
        "return parseFloat(getComputedStyle(document.querySelector('#rows tr td.url .clip')).lineHeight) || 16")
    assert max(heights) <= 3 * line + 16, (heights, line)
    assert all(top < 1000 for top in driver.execute_script(
        "return Array.from(document.querySelectorAll('#rows tr'), tr => tr.getBoundingClientRect().top)")), "every row in view"
    cell = driver.find_elements(By.CSS_SELECTOR, "#rows tr td.url")[1]
    assert cell.get_attribute("title") == beacon, "the whole URL on hover"
    assert rows(driver)[1][1] == beacon, "the cell holds all of it, clipped only where it shows"
    driver.find_elements(By.CSS_SELECTOR, "#rows tr")[1].click()
    wait(driver, lambda d: "analytics" in d.find_element(By.ID, "details-title").text)
    title = driver.find_element(By.ID, "details-title")
    assert title.size["height"] <= 3 * 1.5 * 15 + 8, title.size
    summary = driver.execute_script(
        "return Array.from(document.querySelectorAll('#details-body table tr'), tr => [tr.children[0].textContent, tr.children[1].textContent])")
    assert ["url", beacon] in summary, summary[:3]
    errors = console_errors(driver)
    assert not errors, errors


def test_a_gzip_or_deflate_request_body_is_shown_decoded_beside_its_bytes(server, driver):
    """Tester finding tester43a-F6, its request: `POST /api/events` with the JSON
    `{"event":"feed_opened","n":1}` gzip-compressed (`Content-Encoding: gzip`) matched a jsonPath
    mock and was exported decoded in the HAR, but the page showed only a hex dump of its 49
    bytes. Now the decoded JSON is shown above them; a deflate body (zlib data, and raw deflate)
    too; a body whose coding the page cannot undo says why, and its hex stays."""
    tenant = "gz"
    status, _ = server.json("POST", "/catbird/api/mocks", {
        "type": "update",
        "pattern": {"method": "POST", "url": {"kind": "equal", "value": "/api/events"}, "headers": {},
                    "body": {"kind": "jsonPath", "value": "$.event", "equalTo": "feed_opened"}},
        "response": {"status": 202, "headers": {}}}, tenant)
    assert status == 201, status
    text = b'{"event":"feed_opened","n":1}'
    raw_deflate = zlib.compressobj(wbits=-15)
    bodies = [
        ("gzip", gzip.compress(text)),
        ("deflate", zlib.compress(text)),
        ("deflate", raw_deflate.compress(text) + raw_deflate.flush()),
        ("gzip", b"\x1f\x8b\x08\x00not gzip at all"),
        ("gzip", gzip.compress(b'{"event":"feed_o') + gzip.compress(b'pened","n":1}')),  # two members: tester45a-F7
    ]
    for coding, body in bodies:
        status, _, _ = server.request("POST", "/api/events", body,
                                      {"Content-Type": "application/json", "Content-Encoding": coding}, tenant)
        assert status == (202 if b"not gzip" not in body else 404), (coding, status)
    driver.get(server.url + "/catbird?tenant=" + tenant)
    wait_live(driver)
    wait(driver, lambda d: len(rows(d)) == len(bodies), message="the requests never showed")
    for index, (coding, body) in enumerate(reversed(bodies)):  # newest first
        driver.find_elements(By.CSS_SELECTOR, "#rows tr")[index].click()
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#details pre.hex"), message=f"{coding}: the hex of its bytes")
        wait(driver, lambda d: any(note in d.find_element(By.ID, "details").text for note in ("decoded from", "not shown decoded")),
             message=f"{coding}: a note on its decoding")
        details = driver.find_element(By.ID, "details").text
        if b"not gzip" in body:
            assert "not shown decoded (gzip)" in details, details
            assert "decoded from" not in details, details
        else:
            assert f"decoded from {coding}: 29 B" in details, details
            assert '"event"' in details and '"feed_opened"' in details, details
            assert driver.find_elements(By.CSS_SELECTOR, "#details .json"), "shown as a JSON tree"
        assert f"binary: {len(body)} B" in details, details
    errors = console_errors(driver)
    assert not errors, errors


def test_page_fits_a_phone_screen(server, driver):
    phone = browser(390, 844, phone=True)
    try:
        server.request("GET", "/api/a-rather-long-path/with/segments?and=a&query=string&that=goes&on=and-on")
        phone.get(server.url + "/catbird")
        wait_live(phone)
        assert phone.execute_script("return window.innerWidth") == 390
        overflow = phone.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the page is {overflow} px wider than the screen"
        phone.find_element(By.CSS_SELECTOR, "#rows tr").click()
        wait(phone, lambda d: "Response body" in d.find_element(By.ID, "details").text)
        rect = phone.execute_script("const r = document.getElementById('details').getBoundingClientRect(); return [r.left, r.width]")
        assert rect == [0, 390], f"details cover the screen: {rect}"
        phone.find_element(By.ID, "details-close").click()
        assert not phone.find_element(By.ID, "details").is_displayed()
        assert not console_errors(phone)
    finally:
        phone.quit()


def test_a_very_long_tenant_id_is_cut_and_leaves_the_others_in_view(server, driver):
    # Regression: a 20,000-character tenant id was shown whole and pushed the others out of view.
    # Ids are now at most 1,024 bytes (docs/tenancy.md#tenant-of-a-request): the longest is used.
    long_id = "L" * 1024
    server.request("GET", "/long", tenant=long_id)
    server.request("GET", "/x", tenant="shard-2")
    driver.get(server.url + "/catbird")
    wait_live(driver)
    buttons = lambda d: d.find_elements(By.CSS_SELECTOR, "#tenants button")
    wait(driver, lambda d: len(buttons(d)) == 3, message="three tenants")
    names = [b.text.split("\n")[0] for b in buttons(driver)]
    assert names == ["default tenant", "L" * 64 + "…", "shard-2"], [name[:80] for name in names]
    assert buttons(driver)[1].get_attribute("title").split("\n")[0] == long_id, "the whole id in the title"
    picker = driver.find_element(By.ID, "tenants").rect
    other = buttons(driver)[2].rect
    assert other["y"] < picker["y"] + picker["height"] and other["height"] < 200, (picker, other)
    buttons(driver)[1].click()
    wait(driver, lambda d: [url for _, url in rows(d)] == ["/long"], message="the long tenant's rows")
    assert driver.find_element(By.ID, "tenant-title").text == "L" * 64 + "…"
    errors = console_errors(driver)
    assert not errors, errors


def test_after_a_restart_on_a_fresh_database_new_requests_still_appear(server, driver):
    # T18A-F3, the finding's sequence: five requests shown (the page's `since` is 5), the server
    # restarted on a fresh database (ids start again at 1), one request. The page kept asking
    # for entries after 5, said `live`, and never showed /after-restart until reloaded.
    for index in range(1, 6):
        server.request("GET", f"/r{index}")
    driver.get(server.url + "/catbird")
    wait_live(driver)
    wait(driver, lambda d: len(rows(d)) == 5, message="the five requests")
    server.restart_on_a_fresh_database()
    server.request("GET", "/after-restart")
    wait(driver, lambda d: [url for _, url in rows(d)] == ["/after-restart"], timeout=15,
         message=f"the request after the restart, alone: {rows(driver)}")
    wait_live(driver)
    assert "loaded afresh" in driver.find_element(By.ID, "notice").text, driver.find_element(By.ID, "notice").text
    server.request("GET", "/later")  # and it follows the new journal live
    wait(driver, lambda d: [url for _, url in rows(d)] == ["/later", "/after-restart"], message=f"live after: {rows(driver)}")


def test_while_the_database_file_is_deleted_the_status_says_the_server_is_degraded(server, driver):
    # tester22a-F16, the finding's steps: page open on tenant dg, `/before` shown, the database
    # file deleted under the server (a CI `git clean -fdx`), `/after/0` sent: health answered 503
    # degraded and journal rows were dropped, while the page said `live` and showed nothing new.
    driver.get(server.url + "/catbird?tenant=dg")
    wait_live(driver)
    server.request("GET", "/before", tenant="dg")
    wait(driver, lambda d: [url for _, url in rows(d)] == ["/before"], message="row")
    os.remove(server.database)
    server.request("GET", "/after/0", tenant="dg")
    status, health = server.json("GET", "/catbird/api/health")
    assert status == 503 and health["status"] == "degraded", (status, health)
    wait(driver, lambda d: "the server is degraded: " + health["reason"] in d.find_element(By.ID, "status").text,
         timeout=8, message="the status did not say the server is degraded")
    assert "offline" in driver.find_element(By.ID, "status").get_attribute("class").split()


def test_after_the_tenant_is_dropped_the_next_request_is_shown_alone(server, driver):
    # tester20b-F1, the finding's sequence: a shard's five requests shown, its tenant dropped (a
    # test's start), one request. Ids go on increasing across the drop, so the page took the new
    # entry as the next one and showed it above the five dropped ones.
    for index in range(5):
        server.request("GET", f"/old/{index}", tenant="pg")
    driver.get(server.url + "/catbird?tenant=pg")
    wait_live(driver)
    wait(driver, lambda d: len(rows(d)) == 5, message="the five requests")
    status, _, _ = server.request("DELETE", "/catbird/api/tenants/pg")
    assert status == 204, status
    server.request("GET", "/new/1", tenant="pg")
    wait(driver, lambda d: [url for _, url in rows(d)] == ["/new/1"], timeout=15,
         message=f"the request after the drop, alone: {rows(driver)}")
    assert "loaded afresh" in driver.find_element(By.ID, "notice").text, driver.find_element(By.ID, "notice").text
    server.request("GET", "/new/2", tenant="pg")  # and it follows the tenant's journal live
    wait(driver, lambda d: [url for _, url in rows(d)] == ["/new/2", "/new/1"], message=f"live after: {rows(driver)}")


def test_a_link_the_server_refuses_says_so_and_only_a_lost_server_is_offline(server, driver):
    """Tester finding T12-F12: /catbird?tenant=pg2&status=9xx showed "offline: 'status' must be a
    whole number or a class such as 4xx", and a 1,100-byte tenant in the link "offline: the
    X-Catbird-Parallel-Id header is longer than 1024 bytes", and asked again every second. The
    server is up; the link is bad: the page says the server refused the view, with its reason,
    and asks again only once the view changes. "offline" is kept for a server that cannot be
    reached."""
    status = lambda d: d.find_element(By.ID, "status").text
    asked = lambda: driver.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.name.includes('/catbird/api/requests?')).length")
    server.request("GET", "/x", tenant="pg2")
    for link, reason in [
        ("?tenant=pg2&status=9xx", "'status' must be a whole number or a class such as 4xx"),
        ("?tenant=" + "x" * 1100,
         "the X-Catbird-Parallel-Id header is longer than 1024 bytes (docs/tenancy.md#tenant-of-a-request)"),
    ]:
        driver.get("about:blank")
        driver.get(server.url + "/catbird" + link)
        wait(driver, lambda d: status(d) != "connecting…", message="no answer shown")
        assert status(driver) == "the server refused this view: " + reason, status(driver)
        before = asked()
        time.sleep(2.5)
        assert asked() == before, f"asked {asked() - before} times more for a view the server refused"
        assert status(driver) == "the server refused this view: " + reason, status(driver)
    # Another tenant is a new view: it is asked for, and shown.
    driver.find_element(By.CSS_SELECTOR, "#tenants button[data-tenant='']").click()
    wait_live(driver)
    # A server that is gone is offline, and the page keeps trying.
    server.process.kill()
    server.process.wait()
    wait(driver, lambda d: status(d).startswith("offline: "), message="a stopped server is offline")


def test_a_link_whose_tenant_holds_a_line_break_says_so_and_is_not_offline(server, driver):
    # tester22a-F11, the finding's link: /catbird?tenant=a%0Ab said "offline: Failed to execute
    # 'fetch' on 'Window': Invalid value (retrying)" and asked every second, the server up: no
    # header can carry a line break. The page says the link's id is the problem and does not ask
    # again. A line break at the end (an id read with its newline) is dropped, as the browser
    # drops it from the header: that view shows the tenant its requests went to.
    status = lambda d: d.find_element(By.ID, "status").text
    asked = lambda: driver.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.name.includes('/catbird/api/requests?')).length")
    driver.get(server.url + "/catbird?tenant=a%0Ab")
    wait(driver, lambda d: status(d) != "connecting…", message="no answer shown")
    expected = ("this view cannot be shown: the tenant id in this link holds a line break (LF), which no HTTP header "
                "can carry, so no request can be in that tenant: check the link")
    assert status(driver) == expected, status(driver)
    before = asked()
    time.sleep(2.5)
    assert status(driver) == expected and asked() == before, (status(driver), asked() - before)
    server.request("GET", "/ci", tenant="shard-1")
    driver.get(server.url + "/catbird?tenant=shard-1%0A")
    wait_live(driver)
    wait(driver, lambda d: [url for _, url in rows(d)] == ["/ci"], message="shard-1's request")
    assert driver.find_element(By.ID, "tenant-title").text == "shard-1"
    assert driver.execute_script("return location.search") == "?tenant=shard-1"
    errors = console_errors(driver)
    assert not errors, errors


TESTS = [
    (test_page_loads_without_console_errors_and_journals_nothing, ()),
    (test_request_made_after_load_appears_within_two_seconds, ()),
    (test_hidden_tabs_hold_no_long_poll_so_a_seventh_tab_loads_and_shows_details_at_once, ()),
    (test_choosing_a_tenant_shows_only_its_requests_and_its_url_is_shareable, ()),
    (test_a_links_status_code_or_other_method_filter_is_shown_and_kept, ()),
    (test_many_tenants_can_be_filtered_in_the_picker, ()),
    (test_typing_in_the_tenant_filter_asks_the_server_nothing, ()),
    (test_a_very_long_tenant_id_is_cut_and_leaves_the_others_in_view, ()),
    (test_a_link_the_server_refuses_says_so_and_only_a_lost_server_is_offline, ()),
    (test_a_link_whose_tenant_holds_a_line_break_says_so_and_is_not_offline, ()),
    (test_after_a_restart_on_a_fresh_database_new_requests_still_appear, ()),
    (test_after_the_tenant_is_dropped_the_next_request_is_shown_alone, ()),
    (test_while_the_database_file_is_deleted_the_status_says_the_server_is_degraded, ()),
    (test_past_two_hundred_tenants_the_picker_asks_for_a_page_and_the_filter_asks_by_prefix, ()),
    (test_with_an_admin_token_a_tenant_link_works_and_the_token_lists_every_tenant, ("--admin-token", "s3cret")),
    (test_details_show_headers_pretty_json_and_the_answering_mock, ()),
    (test_details_show_the_answering_mock_as_it_is_now_not_as_the_view_loaded, ()),
    (test_an_entrys_problem_marks_its_row_and_is_said_in_its_details, ()),
    (test_an_answer_cut_short_after_its_row_was_shown_is_marked_live, ()),
    (test_a_shards_request_answered_by_a_shared_fixture_shows_that_mock, ()),
    (test_copy_as_curl_reproduces_head_proxy_form_asterisk_and_empty_header_requests, ()),
    (test_copy_as_curl_sends_a_body_starting_with_an_at_sign_as_written, ()),
    (test_copy_as_curl_sends_the_journaled_target_without_globbing_or_dot_segments, ()),
    (test_copy_as_curl_while_the_next_entrys_details_load_copies_nothing_of_the_entry_before, ()),
    (test_copy_as_curl_then_another_row_shows_no_command_of_the_row_before, ()),
    (test_copy_as_curl_of_a_request_whose_query_was_left_out_says_so, ()),
    (test_copy_as_curl_from_the_box_sends_crlf_bodies_bidi_headers_and_odd_targets_as_journaled, ()),
    (test_copy_as_curl_sends_a_repeated_header_field_as_two_and_the_details_list_both, ()),
    (test_copy_as_curl_adds_no_header_field_the_request_did_not_have, ()),
    (test_copy_as_curl_sends_non_ascii_and_proxy_form_targets_a_bom_and_a_head_body_as_journaled, ()),
    (test_copy_as_curl_sends_a_late_nul_and_a_long_text_body_byte_for_byte, ("--journal-body-limit", "1mb")),
    (test_json_viewer_shows_keys_and_numbers_as_the_body_wrote_them, ()),
    (test_markup_in_url_header_body_and_tenant_is_shown_as_text, ()),
    (test_bidi_controls_in_a_url_are_shown_escaped, ()),
    (test_bidi_controls_in_a_tenant_id_are_escaped_in_the_tab_title_and_tooltips, ()),
    (test_tenants_whose_ids_differ_only_by_canonically_equivalent_characters_are_told_apart, ()),
    (test_copy_as_curl_of_a_request_journaled_without_a_method_sends_a_request_line, ("--head-timeout", "2")),
    (test_line_terminators_in_a_url_and_invisible_characters_in_a_tenant_id_are_shown, ()),
    (test_control_characters_in_headers_tenant_ids_and_bodies_are_shown_and_copied_escaped, ()),
    (test_a_huge_method_or_header_name_leaves_the_other_columns_in_view, ()),
    (test_a_tenant_named_default_tenant_is_not_shown_as_the_default_tenant, ()),
    (test_a_charset_inside_another_parameters_quotes_is_not_read, ()),
    (test_mocks_that_differ_by_body_pattern_show_it, ()),
    (test_a_jsonpath_patterns_equalto_is_shown_as_json, ()),
    (test_the_mocks_tab_label_follows_mocks_added_after_the_page_opened, ()),
    (test_one_hundred_thousand_entries_open_in_under_a_second, ()),
    (test_a_burst_of_more_than_a_poll_keeps_the_details_open_and_the_newest_five_hundred_rows, ()),
    (test_reading_further_down_keeps_its_place_as_rows_arrive, ()),
    (test_pause_keeps_position_and_clear_asks_first, ()),
    (test_five_megabyte_body_shows_a_preview_and_the_whole_on_demand, ("--journal-body-limit", "8mb")),
    (test_a_body_the_journal_cut_offers_only_what_it_kept_and_stays_text, ()),
    (test_a_latin1_text_body_is_shown_as_text_as_the_journal_reads_it, ()),
    (test_image_and_binary_bodies_show_as_an_image_and_a_hex_preview, ()),
    (test_an_svg_or_html_body_sent_as_an_image_is_shown_as_text_not_as_a_blob_image, ()),
    (test_resume_after_more_than_five_hundred_arrivals_counts_them_and_shows_the_newest_five_hundred, ()),
    (test_resume_on_an_empty_journal_after_a_burst_offers_the_older_arrivals, ()),
    (test_page_fits_a_phone_screen, ()),
    (test_a_long_url_takes_at_most_three_lines_of_its_row_and_is_whole_on_hover_and_in_the_details, ()),
    (test_a_gzip_or_deflate_request_body_is_shown_decoded_beside_its_bytes, ()),
]

# The HAR export in DevTools' own importer (needs this file's Server and browser()).
import har_import_test  # noqa: E402
TESTS += har_import_test.TESTS


# ------------------------------------------------------------------ screenshot for the README

def screenshot(path):
    server = Server()
    driver = browser(1280, 1100)
    try:
        server.add_mock("/api/feed", body=b'{"posts":[{"id":1,"author":"alice","text":"Hello"}]}',
                        headers={"Content-Type": "application/json"})
        server.add_mock("/api/login", status=400, body=b'{"error":{"code":"user_blocked"}}',
                        headers={"Content-Type": "application/json"}, limit=2)
        for tenant in ("shard-1", "shard-2"):
            server.request("GET", "/api/feed", tenant=tenant)
        server.request("GET", "/api/feed", headers={"Accept": "application/json", "User-Agent": "FeedApp/1.0"})
        server.request("POST", "/api/createPost", b'{"text":"My new post"}', {"Content-Type": "application/json"})
        server.request("GET", "/api/login")
        server.request("GET", "/api/feed", headers={"Accept": "application/json", "User-Agent": "FeedApp/1.0"})
        driver.get(server.url + "/catbird")
        wait_live(driver)
        driver.find_elements(By.CSS_SELECTOR, "#rows tr")[0].click()
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#details .json"))
        time.sleep(0.3)
        driver.save_screenshot(path)
    finally:
        driver.quit()
        server.stop()


def main():
    args = sys.argv[1:]
    if args[:1] == ["--screenshot"]:
        screenshot(args[1])
        return 0
    selected = args[1] if args[:1] == ["-k"] else ""
    passed, failed = 0, []
    for test, extra in TESTS:
        if selected not in test.__name__:
            continue
        print(f"browser test {test.__name__} ...", flush=True)
        server, driver = Server(*extra), None
        started = time.monotonic()
        try:
            driver = browser()
            test(server, driver)
            passed += 1
            print(f"  passed ({time.monotonic() - started:.1f} s)", flush=True)
        except Exception:
            failed.append(test.__name__)
            print("  FAILED\n" + traceback.format_exc(), flush=True)
        finally:
            if driver:
                driver.quit()
            server.stop()
    for name in failed:
        print(f"browser test failed: {name}")
    print(f"browser tests: {passed} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
