// Catbird's live log page. Served from /catbird/assets/page.js under a Content-Security-Policy
// that allows no inline script. Every value that comes from a request or a mock is put into
// the page with textContent (never innerHTML), so it is shown as text and never runs.
// The page reads the API documented in the README ("Request journal", "Tenants"); every call
// goes through api(), the one place that adds the tenant and, if one is set, the admin token.
"use strict";

const PAGE_SIZE = 100;         // rows per journal page (first page and "load older")
const MAX_ROWS = 500;          // rows kept in the page; older ones can be paged back in
const LIVE_BATCH = 100;        // entries asked for per live poll: a page of more than 100 is slow-lane work (docs/tenancy.md), which a parked poll would hold
const LONG_POLL_SECONDS = 25;  // how long the server may hold a live poll when it supports wait=
const SHORT_POLL_MS = 500;     // pause between polls when it does not
const PREVIEW_BYTES = 65536;   // body bytes fetched for a preview
const TREE_LIMIT = 1048576;    // JSON bodies up to this size are shown as a collapsible tree
const DECODED_LIMIT = 8388608;  // a compressed body is shown decoded up to this size
const TENANTS_REFRESH_MS = 5000;
const TENANTS_SHOWN = 200;     // tenants asked for per refresh: the server lists a page of them, never all (tester finding T11-F3)
const TENANT_PREFIX_WAIT_MS = 300;  // pause after typing in the filter before the server is asked for ids that start with it
const TENANT_FILTER_FROM = 8;  // the tenants filter box shows from this many tenants on

const $ = (id) => document.getElementById(id);

const state = {
  tenant: "",            // "" is the default tenant
  filters: { method: "", status: "", answeredBy: "", url: "" },
  generation: 0,         // bumped whenever the view is reset; stale answers are dropped
  abort: null,           // AbortController of the current view's requests
  since: 0,              // highest journal id seen (live polls ask for entries after it)
  serverRun: null,       // the server run those ids came from (the listing's `serverRun`)
  before: null,          // lowest id shown ("load older" asks for entries before it)
  hasOlder: false,
  rows: [],              // entries shown, newest first
  paused: false,
  detached: false,       // showing older pages: live entries are not added until resumed
  pending: [],           // entries that arrived while paused, newest first
  pendingCount: 0,       // entries that arrived while paused, all counted (`pending` keeps the newest MAX_ROWS)
  recheck: [],           // rows shown without a `problem` that may still get one: { id, until }, newest first
  // Whether live polls pass wait= (a long poll: the server parks the request, holding no
  // thread, and answers as soon as a matching entry is journaled). Turned off if a server
  // refuses wait= (an older Catbird); the page then asks every SHORT_POLL_MS instead.
  longPoll: true,
  selected: null,        // id of the entry shown in the details panel
  mocks: new Map(),      // mock id -> mock, the tenant's table as last read
  mocksShown: null,      // that table as JSON, as the Mocks tab shows it
  tab: "journal",
  degraded: null,        // health's reason while the server is degraded, else null
  status: null,          // the status last set: { text, offline }
  token: sessionStorage.getItem("catbird.token") || "",  // the admin token, when the server has one
};

// ---------------------------------------------------------------- API access

class APIError extends Error {
  constructor(status, reason) { super(reason); this.status = status; }
}

// The tenant header carries the parallel id as UTF-8 bytes: fetch() takes header values as
// byte strings (one character per byte), and the server reads header bytes as UTF-8, so any
// Unicode tenant id survives.
function headerBytes(text) {
  let out = "";
  for (const byte of new TextEncoder().encode(text)) out += String.fromCharCode(byte);
  return out;
}

// A tenant id no HTTP header can carry: fetch() refuses a header value holding a CR, LF or NUL,
// which the page took for the server being unreachable: "offline … (retrying)" every second
// while the server was up (tester finding tester22a-F11). No request can be in such a tenant
// (the client libraries refuse the id, docs/tenancy.md), so the link is what is wrong.
class UnsendableTenant extends Error {}

function checkSendable(tenant) {
  const found = /[\r\n\0]/.exec(tenant);
  if (!found) return;
  const what = { "\r": "a carriage return (CR)", "\n": "a line break (LF)", "\0": "a NUL character" }[found[0]];
  throw new UnsendableTenant(`the tenant id in this link holds ${what}, which no HTTP header can carry, so no request can be in that tenant: check the link`);
}

// One call to the server's API for `tenant` (the view's tenant by default; null sends no tenant
// header: the admin view). Answers the parsed JSON, or the raw bytes with `as: "bytes"`.
async function api(path, { method = "GET", tenant = state.tenant, as = "json", signal } = {}) {
  const headers = {};
  if (tenant) {
    checkSendable(tenant);
    headers["X-Catbird-Parallel-Id"] = headerBytes(tenant);
  }
  if (state.token) headers["Authorization"] = "Bearer " + state.token;
  const response = await fetch(path, { method, headers, signal, cache: "no-store" });
  if (response.status === 401) $("token-form").hidden = false;
  if (!response.ok) {
    let reason = response.statusText;
    try { reason = (await response.json()).reason || reason; } catch (_) { /* not JSON */ }
    throw new APIError(response.status, reason);
  }
  if (as === "bytes") {
    return {
      bytes: new Uint8Array(await response.arrayBuffer()),
      size: Number(response.headers.get("X-Catbird-Body-Size")),      // bytes received
      stored: Number(response.headers.get("X-Catbird-Stored-Size")),  // bytes the journal kept
    };
  }
  return response.status === 204 ? null : response.json();
}

function journalPath(params) {
  const query = new URLSearchParams({ bodies: "false" });
  const f = state.filters;
  if (f.method) query.set("method", f.method);
  if (f.status) query.set("status", f.status);
  if (f.answeredBy) query.set("answeredBy", f.answeredBy);
  if (f.url) query.set("url", f.url);
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null) query.set(key, String(value));
  return "/catbird/api/requests?" + query;
}

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
});

// ---------------------------------------------------------------- small DOM helpers

// Bidirectional formatting characters (U+061C, U+200E/F, U+202A-202E, U+2066-2069) reorder
// the text shown around them: `/files/\u202Efdp.exe` read `/files/exe.pdf` (tester finding
// T15B-F15); the line terminators U+0085, U+2028 and U+2029 showed as a space, an empty box or
// nothing at all (`/p?x=\u2029` read `/p?x=`: tester finding tester39a-F1). Every value put
// into the page goes through setText(), which shows each one as a marked `\u202E` (class
// "escaped") in place of the character itself. So are the control characters other than tab,
// LF and CR (C0, DEL and C1), which showed as an empty box or as nothing: a header value
// `a\x1b[31mred\x07` read `a□[31mred□`, a tenant `t\x1b[33myellow` as `t[33myellow` (tester
// finding tester56b-F1).
const BIDI_CONTROLS = /([\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069])/;

function setText(node, text) {
  const parts = String(text).split(BIDI_CONTROLS);
  if (parts.length === 1) { node.textContent = parts[0]; return; }
  node.textContent = "";
  parts.forEach((part, index) => {
    if (index % 2 === 0) { if (part) node.append(part); return; }
    const escaped = bidiEscape(part);
    const mark = document.createElement("span");
    mark.className = "escaped";
    mark.textContent = escaped;
    mark.title = /[\u0085\u2028\u2029]/.test(part)
      ? `U+${escaped.slice(2)}, a line terminator, shown escaped: it would show as a space or as nothing`
      : /[\u0000-\u009f]/.test(part)
        ? `U+${escaped.slice(2)}, a control character, shown escaped: it would show as an empty box or as nothing`
        : `U+${escaped.slice(2)}, a bidirectional control character, shown escaped: it would reorder the text around it`;
    node.append(mark);
  });
}

// `text` with each bidirectional control written `\u202E`, for where no marked span can go: a
// title attribute (a tooltip) and the document's title (the tab and the history; tester finding
// tester29a-F2: `Catbird · shard-\u202Egpj.exe` read `shard-exe.jpg` in the tab).
function escapeBidi(text) {
  return String(text).replace(new RegExp(BIDI_CONTROLS.source, "g"), bidiEscape);
}

// One code point as the text `\u202E` (four upper-case hex digits, more past U+FFFF): a
// bidirectional control, or a non-ASCII character of a tenant id not in NFC (tenantLabel).
function bidiEscape(char) {
  return "\\u" + char.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) setText(node, text);
  if (className) node.className = className;
  return node;
}

// A table cell whose text shows at most three lines (`.clip`), all of it on hover: one 8 KB
// analytics URL made its journal row taller than the window (tester finding tester43a-F4).
function clippedCell(text, className) {
  const td = el("td", undefined, className);
  td.append(el("div", text, "clip"));
  td.title = escapeBidi(String(text));
  return td;
}

function setStatus(text, offline = false) {
  state.status = { text, offline };
  const degraded = state.degraded && !offline ? " · the server is degraded: " + state.degraded : "";
  setText($("status"), text + degraded);
  $("status").classList.toggle("offline", offline || degraded !== "");
}

// The server's health, asked with the tenants refresh: while it is degraded (its database file
// deleted or full: journal rows dropped or queued) the listing the page polls still answers 200
// from the open file, so the page said `live` and new requests never showed (tester finding
// tester22a-F16). The status then adds health's reason.
async function checkHealth() {
  let degraded = null;
  try {
    const response = await fetch("/catbird/api/health", { cache: "no-store" });
    if (!response.ok) {
      const answer = await response.json().catch(() => ({}));
      if (answer.status === "degraded") degraded = answer.reason || "health answered " + response.status;
    }
  } catch (_) { return; }  // offline: the polls say so
  if (degraded === state.degraded) return;
  state.degraded = degraded;
  if (state.status) setStatus(state.status.text, state.status.offline);
}

// Whether a failed call was refused by the server for what the view asks (a 4xx: a bad filter
// or tenant in the link, a missing admin token): asking again cannot change the answer until
// the view changes. 408 and 429 (busy) pass with time, as do a 5xx and a network failure.
function isRefusal(error) {
  if (error instanceof UnsendableTenant) return true;
  return error instanceof APIError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

// The status line for a failed call: "offline" only when the server could not be reached or
// failed; a refusal names the server's reason (tester finding T12-F12: a link with `status=9xx`
// or a 1,100-byte tenant said "offline" while the server was up).
function failureStatus(error) {
  if (error instanceof UnsendableTenant) return "this view cannot be shown: " + error.message;
  if (isRefusal(error)) return "the server refused this view: " + error.message;
  if (error instanceof APIError) return `the server answered ${error.status}: ${error.message}`;
  return "offline: " + error.message;
}

function notice(text) {
  setText($("notice"), text || "");  // a server's reason may quote a request's URL or tenant
  $("notice").hidden = !text;
}

// The shown characters of a tenant id (code points, so at most 256 bytes; the server's reasons cut at 64 bytes):
// a longer id is cut with "…", so a 20,000-character id cannot push the other tenants out of
// view; the whole id stays in the button's title and in the address bar (docs/tenancy.md#ids-in-messages).
const TENANT_SHOWN_CHARACTERS = 64;

// An id that Unicode's canonical composition (NFC) would change is shown with each of its
// non-ASCII code points written `\u212A`: ids are one tenant only when their bytes are the same
// (docs/tenancy.md#tenant-of-a-request), so `shard-K` and `shard-\u212A` (KELVIN SIGN), or NFC
// `café` and NFD `cafe\u0301`, are two tenants that read alike (tester finding tester38a-F4).
// Of ids that are canonically equivalent at most one is in NFC, and it alone is shown as it is.
// So is an id holding a character Unicode says a reader may not see (Default_Ignorable_Code_Point:
// a zero-width space, a word joiner, a soft hyphen): `web-1` and `web\u200B-1` read alike
// (tester finding tester39a-F2).
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;

// How the default tenant (id "") is named. A tenant whose id reads as this name, or as it in
// quotes, is shown in one more pair of quotes (`"default tenant"`), so that a
// shard that happens to be called so is never taken for the default tenant (tester finding
// tester39a-F12: both read `default tenant` in the picker, the title and the tab).
const DEFAULT_TENANT_LABEL = "default tenant";
const READS_AS_DEFAULT = /^"*default tenant"*$/;

// `whole`: not cut (a tooltip's whole id).
function tenantLabel(id, whole = false) {
  if (id === "") return DEFAULT_TENANT_LABEL;
  let characters = Array.from(id);
  const cut = !whole && characters.length > TENANT_SHOWN_CHARACTERS;
  if (cut) characters = characters.slice(0, TENANT_SHOWN_CHARACTERS);
  if (id.normalize("NFC") !== id || INVISIBLE.test(id)) {
    characters = characters.map((char) => char.codePointAt(0) > 0x7f ? bidiEscape(char) : char);
  }
  const label = characters.join("") + (cut ? "…" : "");
  return READS_AS_DEFAULT.test(label) ? `"${label}"` : label;
}

function formatTime(iso) {
  const date = new Date(iso);
  if (isNaN(date)) return iso;
  const pad = (n, w = 2) => String(n).padStart(w, "0");
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

function ago(iso) {
  const seconds = Math.max(0, Math.round((Date.now() - new Date(iso)) / 1000));
  if (!isFinite(seconds)) return "";
  if (seconds < 60) return seconds + " s ago";
  if (seconds < 3600) return Math.floor(seconds / 60) + " min ago";
  if (seconds < 86400) return Math.floor(seconds / 3600) + " h ago";
  return Math.floor(seconds / 86400) + " d ago";
}

function formatSize(bytes) {
  if (bytes < 1024) return bytes + " B";
  if (bytes < 1048576) return (bytes / 1024).toFixed(1) + " KiB";
  return (bytes / 1048576).toFixed(1) + " MiB";
}

// ---------------------------------------------------------------- tenants

const tenantItems = new Map();  // tenant id -> its <li> in the picker
let tenantList = null;          // the server's last tenant list, filtered here as the box changes
let tenantsAsked = null;        // the tenant-list call under way: one at a time (try8a F8)
let tenantsMore = false;        // the server has more tenants than the list holds
let tenantsPrefix = "";         // the start of an id the list was asked for ("": none)
let tenantPrefixTimer = null;

// The listing to ask for: the first TENANTS_SHOWN tenants by id; while the server has more
// than that, those whose id starts with the filter's text (the page filters what it has by
// substring meanwhile, as it does when it has them all).
function tenantsQuery() {
  const prefix = tenantsMore || tenantsPrefix ? $("tenant-filter").value : "";
  const path = `/catbird/api/tenants?limit=${TENANTS_SHOWN}` + (prefix ? "&prefix=" + encodeURIComponent(prefix) : "");
  return { path, prefix };
}

// Asks the server for the tenants (or joins the call already under way) and shows them. The
// filter box only re-shows the list it has (showTenants): a call per keystroke took the default
// tenant's slow-call places and answered 429 to its tests (tester finding try8a F8).
async function refreshTenants() {
  tenantsAsked ??= (async () => {
    try {
      const { path, prefix } = tenantsQuery();
      const answer = await api(path, { tenant: null });
      tenantList = answer.tenants;
      tenantsMore = answer.hasMore === true;
      tenantsPrefix = prefix;
      // Not the admin: the server has an admin token, and without it the listing holds the
      // default tenant only. The view's own tenant still works (a tenant's link shows that
      // tenant only); the token form offers the rest.
      $("token-form").hidden = answer.admin !== false;
      return true;
    } catch (error) {
      setStatus(failureStatus(error), true);
      return false;
    } finally {
      tenantsAsked = null;
    }
  })();
  if (await tenantsAsked) showTenants();
}

function showTenants() {
  let list = (tenantList ?? []).slice();
  if (!list.some((t) => t.id === "")) list.unshift({ id: "", requests: 0, mocks: 0, lastActivityAt: "" });
  if (!list.some((t) => t.id === state.tenant)) list.push({ id: state.tenant, requests: null, mocks: null, lastActivityAt: "" });
  list.sort((a, b) => (a.id === "" ? -1 : b.id === "" ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  $("tenant-filter").hidden = list.length < TENANT_FILTER_FROM && !tenantsMore && !tenantsPrefix;
  const more = tenantsPrefix ? `The first ${TENANTS_SHOWN} tenants whose id starts with “${tenantsPrefix}”.`
    : `The first ${TENANTS_SHOWN} tenants by id; type the start of an id to find others.`;
  $("tenants-more").textContent = more;
  $("tenants-more").hidden = !tenantsMore;
  const wanted = $("tenant-filter").hidden ? "" : $("tenant-filter").value.toLowerCase();
  if (wanted) list = list.filter((t) => t.id === state.tenant || t.id.toLowerCase().includes(wanted));
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const items = list.map((t) => {
    // One item per tenant, kept across refreshes and updated in place, so a refresh never
    // replaces the button under the pointer.
    let item = tenantItems.get(t.id);
    if (!item) {
      const button = el("button");
      button.type = "button";
      button.dataset.tenant = t.id;
      button.append(el("span", tenantLabel(t.id), "name"), el("span", "", "meta"));
      button.addEventListener("click", () => chooseTenant(t.id));
      item = el("li");
      item.append(button);
      tenantItems.set(t.id, item);
    }
    const button = item.firstElementChild;
    button.setAttribute("aria-current", String(t.id === state.tenant));
    const last = t.lastActivityAt ? " · " + ago(t.lastActivityAt) : "";
    button.lastElementChild.textContent = t.requests === null
      ? "this view's tenant" : `${plural(t.requests, "request")} · ${plural(t.mocks, "mock")}${last}`;
    const activity = t.lastActivityAt ? "last activity " + t.lastActivityAt : "";
    button.title = escapeBidi(tenantLabel(t.id) === t.id ? activity : [tenantLabel(t.id, true), activity].filter(Boolean).join("\n"));
    return item;
  });
  const shown = new Set(items);
  for (const [id, item] of tenantItems) if (!shown.has(item)) tenantItems.delete(id);
  const current = Array.from($("tenants").children);
  if (current.length !== items.length || current.some((node, i) => node !== items[i])) $("tenants").replaceChildren(...items);
}

function chooseTenant(id) {
  if (id === state.tenant) return;
  state.tenant = id;
  writeURL();
  for (const button of $("tenants").querySelectorAll("button")) {
    button.setAttribute("aria-current", String(button.dataset.tenant === id));
  }
  resetView();
}

// The address bar mirrors the view (tenant and filters), so it can be pasted into a CI report.
function writeURL() {
  const query = new URLSearchParams();
  if (state.tenant) query.set("tenant", state.tenant);
  const f = state.filters;
  if (f.method) query.set("method", f.method);
  if (f.status) query.set("status", f.status);
  if (f.answeredBy) query.set("answeredBy", f.answeredBy);
  if (f.url) query.set("url", f.url);
  const search = query.toString();
  history.replaceState(null, "", location.pathname + (search ? "?" + search : ""));
}

function readURL() {
  const query = new URLSearchParams(location.search);
  // Spaces, tabs and line breaks at either end are dropped, as the browser drops them from a
  // header value and the server from the one it reads (a link built from an id read with its
  // line break): the view shows the tenant its requests go to, and the address is written without them.
  const tenant = query.get("tenant") || "";
  state.tenant = tenant.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
  state.filters = {
    method: query.get("method") || "", status: query.get("status") || "",
    answeredBy: query.get("answeredBy") || "", url: query.get("url") || "",
  };
  selectValue($("filter-method"), state.filters.method);
  selectValue($("filter-status"), state.filters.status);
  selectValue($("filter-answered"), state.filters.answeredBy);
  $("filter-url").value = state.filters.url;
  if (state.tenant !== tenant) writeURL();
}

// Chooses `value` in `select`, adding it as an option when the select has none for it: a link's
// `status=404` or `method=PROPFIND` (which the API takes) was applied with a blank select and
// dropped at the next filter change (tester finding tester22a-F4).
function selectValue(select, value) {
  if (value && !Array.from(select.options).some((option) => option.value === value)) {
    const option = el("option", value + " (from the link)");
    option.value = value;
    select.append(option);
  }
  select.value = value;
}

// ---------------------------------------------------------------- journal rows

function rowFor(entry) {
  const tr = el("tr");
  tr.dataset.id = entry.id;
  if (entry.answeredBy === "none") tr.classList.add("unmatched");
  // An entry with a `problem` (nothing sent, libmicrohttpd's own error page, an answer cut
  // short…) is marked, its sentence on hover and in the details (tester finding tester22a-F8).
  if (entry.problem) { tr.classList.add("problem"); tr.title = escapeBidi(entry.problem); }
  if (entry.id === state.selected) tr.classList.add("selected");
  const time = el("td", formatTime(entry.time), "time");
  time.title = entry.time;
  const status = entry.response.status;
  // The method clipped as the URL is: a 9,000-byte one pushed every row's URL and status out
  // of view (tester finding tester56b-F3).
  tr.append(time, clippedCell(entry.method, "method"), clippedCell(entry.url, "url"),
    el("td", status, "s" + Math.floor(status / 100)), el("td", entry.answeredBy, "answered"),
    el("td", entry.durationMs.toFixed(1), "ms"));
  return tr;
}

function renderRows() {
  const fragment = document.createDocumentFragment();
  for (const entry of state.rows) fragment.append(rowFor(entry));
  $("rows").replaceChildren(fragment);
  state.recheck = [];
  watchForProblems(state.rows);
  updateFooter();
}

// How long, and how often, rows shown without a `problem` are read again: the journal adds the
// `problem` of an answer cut short, or of a client that hung up while it was sent, once the
// connection ends, after the row was shown (tester finding tester56b-F4: such a row stayed
// unmarked until a reload). At most RECHECK_ROWS rows, the newest, are read again each time.
const RECHECK_MS = 2000;
const RECHECK_WINDOW_MS = 120000;
const RECHECK_ROWS = 100;

// Adds `entries` (newest first, newer than the rows watched) that have no `problem` to the rows
// read again for one (recheckProblems).
function watchForProblems(entries) {
  const until = Date.now() + RECHECK_WINDOW_MS;
  const added = entries.filter((entry) => !entry.problem).map((entry) => ({ id: entry.id, until }));
  state.recheck = added.concat(state.recheck).slice(0, RECHECK_ROWS);
}

// Marks the row of `entry` (read again, or opened in the details) when its `problem` came after
// the row was shown; its details, when open (and not being opened: `opening`), are shown again
// with it (tester finding tester57a-F6: they kept the entry as first read).
function markProblem(entry, opening = false) {
  if (!entry.problem) return;
  state.recheck = state.recheck.filter((row) => row.id !== entry.id);
  const shown = state.rows.find((row) => row.id === entry.id);
  if (shown) shown.problem = entry.problem;
  const tr = $("rows").querySelector(`tr[data-id="${entry.id}"]`);
  if (!tr || tr.classList.contains("problem")) return;
  tr.classList.add("problem");
  tr.title = escapeBidi(entry.problem);
  if (!opening && state.selected === entry.id && state.detailsEntry?.id === entry.id) openDetails(entry.id);
}

// Reads the watched rows (watchForProblems) again every RECHECK_MS while the view lasts and
// the tab is shown, and marks those that got a `problem` since.
async function recheckProblems(generation, signal) {
  while (generation === state.generation) {
    await sleep(RECHECK_MS, signal);
    if (signal.aborted || generation !== state.generation) return;
    const now = Date.now();
    state.recheck = state.recheck.filter((row) => row.until > now);
    if (state.recheck.length === 0 || document.visibilityState === "hidden") continue;
    const newest = state.recheck[0].id;
    const oldest = state.recheck[state.recheck.length - 1].id;
    let page;
    try {
      page = await api(journalPath({ order: "newest", since: oldest - 1, before: newest + 1, limit: 2 * RECHECK_ROWS }), { signal });
    } catch (_) {
      continue;  // the live poll reports a server that fails
    }
    if (generation !== state.generation) return;
    for (const entry of page.requests) markProblem(entry);
  }
}

function updateFooter() {
  $("empty").hidden = state.rows.length > 0;
  $("older").hidden = !state.hasOlder;
}

// Adds entries (newest first) that are newer than every row shown.
function prepend(entries) {
  if (entries.length === 0) return;
  const fragment = document.createDocumentFragment();
  for (const entry of entries) fragment.append(rowFor(entry));
  $("rows").prepend(fragment);
  state.rows = entries.concat(state.rows);
  watchForProblems(entries);
  if (state.rows.length > MAX_ROWS) {
    const dropped = state.rows.length - MAX_ROWS;
    state.rows.length = MAX_ROWS;
    for (let i = 0; i < dropped; i++) $("rows").lastElementChild.remove();
    state.before = state.rows[state.rows.length - 1].id;
    state.hasOlder = true;
  }
  updateFooter();
}

// Resets to the newest page of the current tenant and filters, then follows it live.
async function resetView() {
  state.abort?.abort();
  state.abort = new AbortController();
  const generation = ++state.generation;
  const signal = state.abort.signal;
  Object.assign(state, { since: 0, before: null, hasOlder: false, rows: [], detached: false, pending: [], pendingCount: 0, recheck: [] });
  closeDetails();
  notice("");
  setText($("tenant-title"), tenantLabel(state.tenant));
  document.title = "Catbird · " + escapeBidi(tenantLabel(state.tenant));
  const mocks = refreshMocks();
  try {
    const page = await api(journalPath({ order: "newest", limit: PAGE_SIZE }), { signal });
    if (generation !== state.generation) return;
    state.rows = page.requests;
    state.since = page.nextSince;
    state.serverRun = page.serverRun ?? null;
    state.before = page.nextBefore ?? null;
    state.hasOlder = page.hasMore;
    renderRows();
    document.documentElement.dataset.firstPageMs ||= String(Math.round(performance.now()));
    setStatus(state.paused ? "paused" : "live");
  } catch (error) {
    if (signal.aborted) return;
    setStatus(failureStatus(error), true);
    if (isRefusal(error)) return;  // asked again when the view changes (tenant, filters, token)
    await sleep(1000, signal);
    if (generation === state.generation) resetView();
    return;
  }
  await mocks;
  recheckProblems(generation, signal);
  follow(generation, signal);
}

// Whether a live poll's answer for `since` comes from another journal than the view's ids
// (tester finding T18A-F3: after a restart on a fresh database, `--db :memory:` or a deleted
// file, ids start again at 1, and the page kept asking for entries after its old `since`, showing
// `live` and nothing new): the server has started again since (another `serverRun`), the
// journal has no entry up to `since` (its `newestId` is lower: cleared, dropped, or a fresh
// database), or every entry shown is gone (all below its `oldestId`: cleared or dropped, then
// new entries journaled; tester finding tester20b-F1: the new entry was shown above the dropped
// ones). docs/protocol.md#following-the-journal.
function anotherJournal(page, since) {
  if (page.serverRun !== undefined && page.serverRun !== state.serverRun) return true;
  if (page.newestId !== undefined && since > page.newestId) return true;
  const newestShown = state.rows.length > 0 ? state.rows[0].id : 0;
  return page.oldestId !== undefined && newestShown > 0 && newestShown < page.oldestId;
}

// The live loop: asks for entries after the newest one seen. With a server that supports
// `wait=`, the request is held until something arrives (a long poll; the server holds no worker
// thread for it); otherwise it asks again every SHORT_POLL_MS. After a failed poll the next one
// does not wait, so a server that came back answers at once and the page sees at once whether
// it is still the journal it followed; when it is not, the view is loaded afresh.
//
// A hidden tab (another tab in front, a minimised window) keeps no poll open: a parked long poll
// holds one of the browser's 6 connections to the server's origin for up to 25 s, so 6 tabs of
// the page took them all and a 7th tab, or a row's details in any tab, waited behind them
// (tester finding tester22a-F10). When the tab is hidden its poll is aborted and the loop waits;
// when shown again it asks at once for everything after `since`, so what arrived meanwhile is
// shown (more than one poll carries is caught up by catchUp, as for a burst).
async function follow(generation, signal) {
  let failed = false;  // the last poll failed (offline, or the server failed)
  while (generation === state.generation) {
    if (document.visibilityState === "hidden") {
      await whenVisible(signal);
      if (signal.aborted || generation !== state.generation) return;
    }
    let page;
    const since = state.since;
    const poll = new AbortController();  // aborted when the view changes or the tab is hidden
    const stopPoll = () => { if (signal.aborted || document.visibilityState === "hidden") poll.abort(); };
    signal.addEventListener("abort", stopPoll);
    document.addEventListener("visibilitychange", stopPoll);
    try {
      const wait = state.longPoll && !failed ? LONG_POLL_SECONDS : undefined;
      page = await api(journalPath({ since, limit: LIVE_BATCH, wait }), { signal: poll.signal });
    } catch (error) {
      if (signal.aborted || generation !== state.generation) return;
      if (poll.signal.aborted) continue;  // the tab was hidden: wait until it is shown
      if (error.status === 400 && state.longPoll) { state.longPoll = false; continue; }
      setStatus(failureStatus(error) + (isRefusal(error) ? "" : " (retrying)"), true);
      if (isRefusal(error)) return;  // asked again when the view changes
      failed = true;
      await sleep(1000, signal);
      continue;
    } finally {
      signal.removeEventListener("abort", stopPoll);
      document.removeEventListener("visibilitychange", stopPoll);
    }
    if (generation !== state.generation) return;
    if (anotherJournal(page, since)) {
      await resetView();
      const why = "The journal is not the one shown before (the server restarted, or its entries were deleted)";
      if (state.generation === generation + 1) notice(why + ": the view was loaded afresh.");
      return;
    }
    failed = false;
    state.since = page.nextSince;
    let fresh = page.requests.slice().reverse();
    let gap = page.hasMore;  // more entries after `since` than `fresh` holds
    if (gap && !state.paused && !state.detached) {
      const rest = await catchUp(page.nextSince, signal);
      if (generation !== state.generation) return;
      if (rest === null) {  // a page failed: ask again from where this poll began
        state.since = since;
        await sleep(1000, signal);
        continue;
      }
      fresh = rest.entries.concat(fresh);
      gap = rest.gap;
    }
    if (state.paused || state.detached) {
      // Each poll while paused carries the next entries after `since` (a burst is read poll by
      // poll), so every arrival is counted; the newest MAX_ROWS are kept for Resume, which
      // shows them as a live burst is shown. Past MAX_ROWS the status said "many new" and
      // Resume loaded the newest 100 afresh, the held rows gone (tester finding tester46c-F2).
      state.pending = fresh.concat(state.pending);
      state.pendingCount += fresh.length;
      if (state.pending.length > MAX_ROWS) state.pending.length = MAX_ROWS;
      setStatus(`paused · ${state.pendingCount} new`);
    } else {
      prepend(fresh);  // keeps the newest MAX_ROWS; Load older pages back from there
      setStatus("live");
    }
    if (fresh.length > 0 && state.tab === "mocks") refreshMocks();
    if (!state.longPoll) await sleep(SHORT_POLL_MS, signal);
  }
}

// The entries after `since` when more arrived than one live poll carries (a burst, a load test):
// the newest pages, back down to `since` or until they hold MAX_ROWS entries, newest first, and
// whether older ones after `since` are left (`gap`). prepend() keeps the newest MAX_ROWS rows and
// Load older pages back from the oldest it keeps, so the view is as if every entry had been
// prepended one by one. Reloading the view instead closed the details being read and dropped
// every row but the newest 100 (tester finding tester22a-F9). Null when a page failed.
async function catchUp(since, signal) {
  const entries = [];
  let before;
  let gap;
  do {
    let page;
    try {
      page = await api(journalPath({ order: "newest", since, before, limit: LIVE_BATCH }), { signal });
    } catch (_) { return null; }
    entries.push(...page.requests);
    before = page.nextBefore;
    gap = page.hasMore;
  } while (gap && entries.length < MAX_ROWS && before !== undefined);
  if (entries.length > 0) state.since = Math.max(state.since, entries[0].id);
  return { entries, gap };
}

// Resolves when the tab is shown (visibilitychange), or at once when `signal` is aborted.
function whenVisible(signal) {
  return new Promise((resolve) => {
    const done = () => {
      if (document.visibilityState === "hidden" && !signal.aborted) return;
      document.removeEventListener("visibilitychange", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    document.addEventListener("visibilitychange", done);
    signal.addEventListener("abort", done, { once: true });
    done();
  });
}

async function loadOlder() {
  if (!state.hasOlder || state.before === null) return;
  const generation = state.generation;
  $("older").disabled = true;
  try {
    const page = await api(journalPath({ order: "newest", before: state.before, limit: PAGE_SIZE }), { signal: state.abort.signal });
    if (generation !== state.generation) return;
    const fragment = document.createDocumentFragment();
    for (const entry of page.requests) fragment.append(rowFor(entry));
    $("rows").append(fragment);
    state.rows = state.rows.concat(page.requests);
    state.before = page.nextBefore ?? state.before;
    state.hasOlder = page.hasMore;
    if (state.rows.length > MAX_ROWS) {
      // Keep the page bounded: drop the newest rows and stop adding live ones until resumed.
      const dropped = state.rows.length - MAX_ROWS;
      state.rows.splice(0, dropped);
      for (let i = 0; i < dropped; i++) $("rows").firstElementChild.remove();
      state.detached = true;
      $("pause").textContent = "Resume";
      notice("Showing older entries; newer ones were set aside. Resume to jump back to the newest.");
      setStatus("paused");
    }
    updateFooter();
  } catch (error) {
    if (!state.abort.signal.aborted) notice("Could not load older entries: " + error.message);
  } finally {
    $("older").disabled = false;
  }
}

function togglePause() {
  if (state.paused || state.detached) {
    state.paused = false;
    $("pause").textContent = "Pause";
    if (state.detached) { state.detached = false; resetView(); return; }
    const pending = state.pending;
    const setAside = state.pendingCount > pending.length;  // arrivals past the newest MAX_ROWS kept
    state.pending = [];
    state.pendingCount = 0;
    prepend(pending);
    if (setAside && state.rows.length > 0) {
      // Older arrivals than those kept: Load older pages back to them (tester finding
      // tester47a-F10: paused on an empty journal, nothing offered them).
      state.before = state.rows[state.rows.length - 1].id;
      state.hasOlder = true;
      updateFooter();
    }
    setStatus("live");
  } else {
    state.paused = true;
    $("pause").textContent = "Resume";
    setStatus("paused");
  }
}

// ---------------------------------------------------------------- clearing

function askClear() {
  $("clear").hidden = true;
  // Through setText: a tenant id's bidi control reordered the question (tester finding tester29c-F2).
  setText($("clear-question"), `Delete every journal entry of ${tenantLabel(state.tenant)}?`);
  $("clear-confirm").hidden = false;
  $("clear-no").focus();
}

function cancelClear() {
  $("clear-confirm").hidden = true;
  $("clear").hidden = false;
}

async function confirmClear() {
  cancelClear();
  try {
    const answer = await api("/catbird/api/requests", { method: "DELETE" });
    notice(`Deleted ${answer.deleted} entries.`);
    setTimeout(() => notice(""), 3000);
  } catch (error) {
    notice("Could not clear the journal: " + error.message);
  }
  const keep = $("notice").textContent;
  await resetView();
  notice(keep);
  refreshTenants();
}

// ---------------------------------------------------------------- mocks panel

function describePattern(pattern) {
  return pattern.url.kind === "equal" ? pattern.url.value : `${pattern.url.kind}: ${pattern.url.value}`;
}

function describeHeaders(headers) {
  return Object.entries(headers || {}).map(([name, match]) => `${name} ${match.kind} ${match.value}`).join("\n");
}

// A body pattern as one line: `jsonPath $.login = "john"`, "contains token" (tester finding
// try8a F5: two mocks differing by body alone looked the same). A jsonPath's `equalTo` is a JSON
// value, written as JSON: `"1"` and `1` are different mocks, an object read `[object Object]`,
// and `equalTo: null` (the field must be null) read like no `equalTo` (any value) (tester
// finding tester22a-F6).
function describeBody(body) {
  if (!body) return "";
  if (body.kind !== "jsonPath") return `${body.kind} ${body.value}`;
  return "equalTo" in body ? `jsonPath ${body.value} = ${JSON.stringify(body.equalTo)}` : `jsonPath ${body.value} (any value)`;
}

// Reads the tenant's mocks into `state.mocks`, the Mocks tab's label and table. Asked on a view
// load, on the Mocks tab, and every TENANTS_REFRESH_MS with the tenant list: a mock added or used
// up by a test's calls journals nothing, and the label said "Mocks (0)" beside a tenant list
// saying "3 mocks" (tester finding tester22a-F5). The table is rebuilt only when the answer
// changed, so text selected in it stays selected.
async function refreshMocks() {
  const tenant = state.tenant;
  let list;
  try {
    list = (await api("/catbird/api/mocks?bodies=false")).mocks;
  } catch (_) { return; }
  if (tenant !== state.tenant) return;  // the view changed meanwhile: its own call answers
  state.mocks = new Map(list.map((m) => [m.id, m]));
  const shown = JSON.stringify(list);
  if (shown === state.mocksShown) return;
  state.mocksShown = shown;
  $("tab-mocks").textContent = `Mocks (${list.length})`;
  const rows = list.map((m) => {
    const tr = el("tr");
    tr.append(el("td", m.position), el("td", m.pattern.method), clippedCell(describePattern(m.pattern), "url"),
      el("td", describeHeaders(m.pattern.headers)), clippedCell(describeBody(m.pattern.body), "body"), el("td", m.response.status),
      el("td", m.remainingLimit === null ? "unlimited" : m.remainingLimit), el("td", m.hits),
      el("td", m.response.delay ? m.response.delay + " s" : ""));
    return tr;
  });
  $("mock-rows").replaceChildren(...rows);
  $("mocks-empty").hidden = list.length > 0;
}

function showTab(tab) {
  state.tab = tab;
  $("tab-journal").setAttribute("aria-selected", String(tab === "journal"));
  $("tab-mocks").setAttribute("aria-selected", String(tab === "mocks"));
  $("journal-panel").hidden = tab !== "journal";
  $("mocks-panel").hidden = tab !== "mocks";
  if (tab === "mocks") refreshMocks();
}

// ---------------------------------------------------------------- details

function closeDetails() {
  state.selected = null;
  // Copy as curl waits for the next entry's details: it copied the entry shown before while
  // they loaded (CI run of dd37ea16: a second row's click, then Copy as curl, sent the first's).
  state.detailsEntry = null;
  $("curl").disabled = true;
  delete $("details").dataset.entryId;
  $("details").hidden = true;
  $("curl-text").hidden = true;
  for (const row of $("rows").querySelectorAll("tr.selected")) row.classList.remove("selected");
}

async function openDetails(id) {
  closeDetails();
  state.selected = id;
  $("rows").querySelector(`tr[data-id="${id}"]`)?.classList.add("selected");
  $("details").hidden = false;
  $("details-title").textContent = "Loading…";
  $("details-body").replaceChildren();
  let entry;
  try {
    entry = await api(`/catbird/api/requests/${id}?bodies=false`);
  } catch (error) {
    setText($("details-title"), "Could not load entry " + id + ": " + error.message);
    return;
  }
  if (state.selected !== id) return;
  markProblem(entry, true);  // a `problem` added since the row was shown (tester56b-F4)
  // The tenant's mocks read afresh: a copy from when the view loaded showed a used-up `limit`
  // mock as alive, with its load-time remaining limit and hits (tester finding tester22a-F5).
  if (entry.mockId !== null) await refreshMocks();
  const shared = entry.mockId !== null && !state.mocks.has(entry.mockId) ? await sharedMock(entry.mockId) : null;
  if (state.selected !== id) return;
  setText($("details-title"), `${entry.method} ${entry.url}`);
  $("details-title").title = escapeBidi(`${entry.method} ${entry.url}`);
  const body = $("details-body");
  body.append(keyValues("Summary", [
    ["url", entry.url], ["time", entry.time], ["tenant", tenantLabel(entry.tenant)], ["status", entry.response.status],
    ["answered by", entry.answeredBy], ["duration", entry.durationMs.toFixed(1) + " ms"],
    ...(entry.problem ? [["problem", entry.problem]] : []),
  ]));
  if (entry.mockId !== null) body.append(mockSection(entry.mockId, shared));
  const request = el("section");
  const response = el("section");
  body.append(request, response);
  state.detailsEntry = entry;
  $("details").dataset.entryId = String(entry.id);
  $("curl").disabled = false;
  await Promise.all([
    renderMessage(request, "Request", entry, "request"),
    renderMessage(response, "Response", entry, "response"),
  ]);
}

function keyValues(title, pairs) {
  const section = el("section");
  section.append(el("h3", title));
  if (pairs.length === 0) { section.append(el("p", "none", "body-note")); return section; }
  const table = el("table");
  for (const [key, value] of pairs) {
    const tr = el("tr");
    // A name is cut at the column's width, whole on hover: a 20,000-byte header name took the
    // panel's width and hid every other header's value (tester finding tester56b-F3).
    const name = el("td");
    name.append(el("div", key, "name"));
    name.title = escapeBidi(String(key));
    tr.append(name, el("td", value));
    table.append(tr);
  }
  section.append(table);
  return section;
}

// The default tenant's mock `mockId`, or null: a shard's request answered by a shared fixture
// (docs/tenancy.md) names a mock its own table does not hold (tester finding tester20b-F12: the
// details said it was "no longer in the table").
async function sharedMock(mockId) {
  if (state.tenant === "") return null;
  try {
    return (await api("/catbird/api/mocks?bodies=false", { tenant: "" })).mocks.find((m) => m.id === mockId) ?? null;
  } catch (_) {
    return null;
  }
}

function mockSection(mockId, shared) {
  const mock = state.mocks.get(mockId) ?? shared;
  if (!mock) return keyValues("Answered by mock", [["mock", `#${mockId} (no longer in the table)`]]);
  const owner = mock === shared ? ", the default tenant's (a shared fixture)" : "";
  return keyValues("Answered by mock", [
    ["mock", `#${mock.id}, position ${mock.position}${owner}`],
    ["method", mock.pattern.method],
    ["URL pattern", describePattern(mock.pattern)],
    ["header patterns", describeHeaders(mock.pattern.headers) || "none"],
    ["body pattern", describeBody(mock.pattern.body) || "none"],
    ["remaining limit", mock.remainingLimit === null ? "unlimited" : mock.remainingLimit],
    ["hits", mock.hits],
  ]);
}

// A message's header fields one by one, as [name, value] pairs: its `headerFields` (the
// single-entry answer's: a repeated name once per value, in the order received), else its
// `headers`, where a repeated name's values are joined with ", " (tester finding T18A-F5: two
// `X-Token` fields, `abc` and `zzz`, showed as one and were copied as `-H 'X-Token: abc, zzz'`,
// which a mock matching the first value `abc` does not answer).
function headerPairs(message) {
  return message.headerFields ? message.headerFields.map((field) => [field.name, field.value]) : Object.entries(message.headers);
}

async function renderMessage(section, title, entry, side) {
  const message = entry[side];
  section.append(keyValues(title + " headers", headerPairs(message)));
  section.append(el("h3", title + " body"));
  const holder = el("div");
  section.append(holder);
  if (message.bodySize === 0) { holder.append(el("p", "empty", "body-note")); return; }
  let preview;
  try {
    preview = await api(`/catbird/api/requests/${entry.id}/${side}/body?limit=${PREVIEW_BYTES}`, { as: "bytes" });
  } catch (error) {
    holder.append(el("p", "could not load the body: " + error.message, "body-note"));
    return;
  }
  renderBody(holder, entry, side, preview.bytes, preview.stored);
}

function contentType(headers) {
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === "content-type") return value.toLowerCase();
  return "";
}

// Shows a body: an image, a JSON tree, text, or size plus a hex preview. `bytes` are the first
// of the `stored` bytes the journal kept, which are the first of the body's `bodySize` when it is
// `bodyTruncated` (--journal-body-limit).
function renderBody(holder, entry, side, bytes, stored) {
  const message = entry[side];
  const allStored = bytes.length >= stored;  // nothing more to fetch
  const whole = allStored && !message.bodyTruncated;  // the body as received, to its last byte
  const type = contentType(message.headers);
  const parts = [];
  if (message.bodyTruncated) parts.push(el("p", `The journal kept only the first ${formatSize(stored)} of ${formatSize(message.bodySize)} (--journal-body-limit).`, "body-note"));
  const note = el("p", "", "body-note");
  note.append(`${formatSize(message.bodySize)}${type ? " · " + escapeBidi(type) : ""}`);
  // Offered only while the journal has more than is shown: on a body the journal cut at 64 KiB
  // it fetched the same bytes again, read them as the whole body, and showed UTF-8 text cut
  // inside a character as binary (tester finding tester22a-F12).
  if (!allStored) {
    note.append(` · showing the first ${formatSize(bytes.length)}`);
    const more = el("button", message.bodyTruncated ? `Show all ${formatSize(stored)} kept` : "Show the whole body");
    more.type = "button";
    more.addEventListener("click", async () => {
      more.disabled = true;
      more.textContent = "Loading…";
      try {
        const all = await api(`/catbird/api/requests/${entry.id}/${side}/body`, { as: "bytes" });
        renderBody(holder, entry, side, all.bytes, all.stored);
      } catch (error) { more.textContent = "Failed: " + error.message; }
    });
    note.append(more);
  }
  const download = el("button", "Download");
  download.type = "button";
  download.addEventListener("click", () => downloadBody(entry, side));
  note.append(download);
  parts.push(note);

  const imageType = type.startsWith("image/") && whole ? rasterImageType(bytes) : null;
  if (imageType) {
    const image = el("img", null, "body-image");
    image.alt = `${side} body image`;
    image.src = URL.createObjectURL(new Blob([bytes], { type: imageType }));
    // Once decoded, the image stays shown without its blob URL: given back at once, not kept
    // (with the body's bytes) until the page reloads.
    image.addEventListener("load", () => URL.revokeObjectURL(image.src), { once: true });
    // Bytes that only start like an image: shown as bytes, not as a broken image (tester
    // finding tester47a-F12: PNG's signature then HTML showed nothing readable).
    image.addEventListener("error", () => {
      URL.revokeObjectURL(image.src);
      image.replaceWith(el("p", `not an image the browser can show: ${formatSize(bytes.length)}; the first ${Math.min(bytes.length, 512)} bytes:`, "body-note"),
        el("pre", hexDump(bytes.subarray(0, 512)), "hex"));
    }, { once: true });
    parts.push(image);
  } else {
    const text = bodyText(bytes, type, whole);
    if (text === null) {
      const codings = whole ? undoableCodings(message.headers) : null;
      if (codings) {
        const decoded = el("div");
        parts.push(decoded);
        showDecoded(decoded, bytes, codings, type);
      }
      parts.push(el("p", `binary: ${formatSize(message.bodySize)}; the first ${Math.min(bytes.length, 512)} bytes:`, "body-note"));
      parts.push(el("pre", hexDump(bytes.subarray(0, 512)), "hex"));
    } else {
      parts.push(textView(text, type, whole));
    }
  }
  holder.replaceChildren(...parts);
}

// The raster image format `bytes` start with (PNG, JPEG, GIF, WebP, BMP, ICO, AVIF), as a media
// type, or null. Only such bytes are shown as an image, from a blob of that type: a blob URL has
// the page's origin, and one of an SVG (or of HTML sent as `image/png, text/html`) opened in a
// tab of its own ran its script there, outside the page's Content-Security-Policy, and could
// read every shard's journal and drop every tenant (tester finding tester46c-F3). An SVG is
// shown as its text.
function rasterImageType(bytes) {
  const starts = (offset, ...values) => values.every((value, index) => bytes[offset + index] === value);
  const ascii = (offset, text) => starts(offset, ...Array.from(text, (c) => c.charCodeAt(0)));
  if (starts(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0, 0xff, 0xd8, 0xff)) return "image/jpeg";
  if (ascii(0, "GIF87a") || ascii(0, "GIF89a")) return "image/gif";
  if (ascii(0, "RIFF") && ascii(8, "WEBP")) return "image/webp";
  if (ascii(0, "BM") && bytes.length > 26) return "image/bmp";
  if (starts(0, 0x00, 0x00, 0x01, 0x00) && bytes.length > 6) return "image/x-icon";
  if (ascii(4, "ftypavif") || ascii(4, "ftypavis")) return "image/avif";
  return null;
}

// The codings of a Content-Encoding the page undoes, last applied first, as the server does
// for matching and the HAR export (docs/matching.md#compressed-request-bodies): gzip, x-gzip
// and deflate; null when there is none or it names another (br, zstd). A gzip-encoded JSON
// body was shown only as a hex dump (tester finding tester43a-F6).
function undoableCodings(headers) {
  const codings = [];
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== "content-encoding") continue;
    for (const part of value.split(",")) {
      const coding = part.trim().toLowerCase();
      if (coding === "" || coding === "identity") continue;
      if (coding !== "gzip" && coding !== "x-gzip" && coding !== "deflate") return null;
      codings.push(coding);
    }
  }
  return codings.length > 0 && codings.length <= 4 ? codings.reverse() : null;
}

// `bytes` through DecompressionStream(`format`), at most DECODED_LIMIT bytes of output (else
// it throws): a few KiB of gzip may hold gigabytes.
async function inflate(bytes, format) {
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(format)).getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > DECODED_LIMIT) { reader.cancel(); throw new Error(`it decodes to more than ${formatSize(DECODED_LIMIT)}`); }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) { out.set(chunk, offset); offset += chunk.length; }
  return out;
}

// gzip `bytes` decoded, several members one after another (`cat a.gz b.gz`) read as one body,
// as matching reads them: the browser's decoder stops at the end of the first ("Junk found
// after end of compressed data"; tester finding tester45a-F7), so the body is cut where a
// later member's header (1f 8b 08) starts and each part decoded, at most 64 members.
async function inflateMembers(bytes, depth = 0) {
  try {
    return await inflate(bytes, "gzip");
  } catch (error) {
    if (depth >= 64) throw error;
    for (let at = 18; at + 3 <= bytes.length; at++) {
      if (bytes[at] !== 0x1f || bytes[at + 1] !== 0x8b || bytes[at + 2] !== 0x08) continue;
      let first;
      try { first = await inflate(bytes.subarray(0, at), "gzip"); } catch (_) { continue; }
      const rest = await inflateMembers(bytes.subarray(at), depth + 1);
      if (first.length + rest.length > DECODED_LIMIT) throw new Error(`it decodes to more than ${formatSize(DECODED_LIMIT)}`);
      const out = new Uint8Array(first.length + rest.length);
      out.set(first, 0);
      out.set(rest, first.length);
      return out;
    }
    throw error;
  }
}

// Fills `holder` with the body decoded from `codings` (undoableCodings): a note and the text,
// JSON tree or hex of the decoded bytes; or why it could not be decoded. `deflate` is zlib
// data, or raw deflate, which some clients send under that name (as the server reads it).
async function showDecoded(holder, bytes, codings, type) {
  let data = bytes;
  try {
    if (typeof DecompressionStream !== "function") throw new Error("this browser has no DecompressionStream");
    for (const coding of codings) {
      if (coding !== "deflate") data = await inflateMembers(data);
      else data = await inflate(data, "deflate").catch(() => inflate(data, "deflate-raw"));
    }
  } catch (error) {
    holder.replaceChildren(el("p", `not shown decoded (${codings.join(", ")}): ${error.message}`, "body-note"));
    return;
  }
  const text = bodyText(data, type, true);
  holder.replaceChildren(
    el("p", `decoded from ${codings.join(", ")}: ${formatSize(data.length)}`, "body-note"),
    text === null ? el("pre", hexDump(data.subarray(0, 512)), "hex") : textView(text, type, true));
}

// UTF-8 text, or null for binary: not UTF-8, or a control character other than tab, LF, VT,
// FF and CR anywhere in it (try11 T11-F6: only the first 4,096 characters were checked, so a
// later NUL went into a copied curl command's --data-raw, where bash drops it). Bytes that are
// only the first of the body (`complete` false: a preview, or what the journal kept of a longer
// body) may end inside a character: stream mode keeps an incomplete last sequence pending
// instead of failing on it.
function decodeText(bytes, complete) {
  try {
    // ignoreBOM: a leading U+FEFF is part of the body (the journal's `body` keeps it); by default
    // TextDecoder drops it, and Copy as curl sent the body without it (tester finding tester29a-F4).
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes, { stream: !complete });
    // DEL and the C1 controls (U+0080-U+009F) are control characters too (tester56b-F1: a
    // UTF-8 body holding U+009B was shown as text, its controls invisible).
    return /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/.test(text) ? null : text;
  } catch (_) { return null; }
}

// The names of ISO-8859-1 a Content-Type's charset may use, as the journal reads them
// (docs/matching.md#body-text-and-charsets).
const LATIN1_NAMES = new Set(["iso-8859-1", "iso_8859-1", "iso_8859-1:1987", "iso-ir-100", "latin1", "l1", "ibm819", "cp819", "csisolatin1"]);

// The `charset` parameter of a (lowercased) Content-Type, "" when there is none, read as the
// journal reads it (BodyText.charset on the server; RFC 9110 §5.6.6): a quoted value with its
// `\` escapes, a `;` inside quotes part of the value, not a separator (tester finding
// tester29a-F1: the `;charset=latin1` inside `foo="a;charset=latin1"` was read), a parameter
// without `=` skipped, an unterminated quoted value kept with its opening quote (no charset's name).
function charsetOf(type) {
  const ows = c => c === " " || c === "\t";
  const trim = s => { let a = 0, b = s.length; while (a < b && ows(s[a])) a++; while (b > a && ows(s[b - 1])) b--; return s.slice(a, b); };
  let i = type.indexOf(";");
  if (i < 0) return "";
  while (i < type.length) {
    i += 1;  // past the `;`
    const nameStart = i;
    while (i < type.length && type[i] !== "=" && type[i] !== ";") i += 1;
    if (i >= type.length || type[i] !== "=") continue;  // no value: skipped
    const isCharset = trim(type.slice(nameStart, i)) === "charset";
    i += 1;
    while (i < type.length && ows(type[i])) i += 1;
    let value = "";
    if (type[i] === "\"") {
      i += 1;
      let closed = false;
      while (i < type.length) {
        const c = type[i++];
        if (c === "\\" && i < type.length) value += type[i++];
        else if (c === "\"") { closed = true; break; }
        else value += c;
      }
      if (!closed) return isCharset ? "\"" + value : "";
      while (i < type.length && type[i] !== ";") i += 1;
    } else {
      const start = i;
      while (i < type.length && type[i] !== ";") i += 1;
      value = trim(type.slice(start, i));
    }
    if (isCharset) return value;
  }
  return "";
}

// A body as text to show, or null for binary. Read by the charset its (lowercased) Content-Type
// declares, as the journal's `body` is: ISO-8859-1 byte by byte (a `charset=iso-8859-1` `café`
// was shown as binary hex, tester finding tester22a-F20; TextDecoder's "iso-8859-1" is
// windows-1252, so it is not used), with its C1 controls 80–9F as control characters; else
// UTF-8 (decodeText). Copy as curl reads UTF-8 only: a shell argument carries UTF-8 bytes.
function bodyText(bytes, type, complete) {
  const charset = charsetOf(type);
  if (!LATIN1_NAMES.has(charset)) return decodeText(bytes, complete);
  let text = "";
  for (let offset = 0; offset < bytes.length; offset += 8192) text += String.fromCharCode.apply(null, bytes.subarray(offset, offset + 8192));
  return /[\u0000-\u0008\u000e-\u001f\u0080-\u009f]/.test(text) ? null : text;
}

function textView(text, type, complete) {
  const looksJSON = type.includes("json") || /^\s*[{[]/.test(text);
  if (looksJSON && complete && text.length <= TREE_LIMIT) {
    const tree = parseJSONText(text);
    if (tree !== null) return jsonView(tree);  // else not JSON after all: show the text
  }
  return el("pre", text);
}

function hexDump(bytes) {
  const lines = [];
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const chunk = bytes.subarray(offset, offset + 16);
    const hex = Array.from(chunk, (b) => b.toString(16).padStart(2, "0")).join(" ");
    const ascii = Array.from(chunk, (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : ".")).join("");
    lines.push(`${offset.toString(16).padStart(8, "0")}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join("\n");
}

async function downloadBody(entry, side) {
  try {
    const whole = await api(`/catbird/api/requests/${entry.id}/${side}/body`, { as: "bytes" });
    const link = el("a");
    link.href = URL.createObjectURL(new Blob([whole.bytes], { type: "application/octet-stream" }));
    link.download = `catbird-${entry.id}-${side}.bin`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  } catch (error) { notice("Could not download the body: " + error.message); }
}

// A pretty-printed, collapsible JSON tree of parseJSONText's nodes: each line reads as indented
// JSON text, keys and scalars as the body wrote them; a repeated key is marked. Containers
// deeper than OPEN_DEPTH or larger than OPEN_ENTRIES start closed and are built when first
// opened, so a large document costs only what is shown.
const OPEN_DEPTH = 4;
const OPEN_ENTRIES = 200;

function jsonView(tree) {
  const root = el("div", null, "json");
  root.append(jsonNode(null, tree, true, 0, ""));
  return root;
}

function jsonNode(key, node, last, depth, repeated) {
  const comma = last ? "" : ",";
  const prefix = () => {
    const span = el("span");
    if (key !== null) { span.append(el("span", key, "k"), ": "); }
    return span;
  };
  const note = () => (repeated ? [el("span", "  // " + repeated, "note")] : []);
  if (node.kind !== "object" && node.kind !== "array") {
    const line = el("div", null, "line");
    line.append(prefix(), el("span", node.lexeme, node.kind), comma, ...note());
    return line;
  }
  const entries = node.entries;
  const [open, close] = node.kind === "array" ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0) {
    const line = el("div", null, "line");
    line.append(prefix(), open + close + comma, ...note());
    return line;
  }
  const details = el("details");
  const summary = el("summary");
  summary.append(prefix(), open, ...note());
  summary.title = node.kind === "array" ? `${entries.length} items` : `${entries.length} keys`;
  details.append(summary);
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    const fragment = document.createDocumentFragment();
    entries.forEach(([k, v, r], i) => fragment.append(jsonNode(k, v, i === entries.length - 1, depth + 1, r)));
    fragment.append(el("div", close + comma));
    details.append(fragment);
  };
  if (depth < OPEN_DEPTH && entries.length <= OPEN_ENTRIES) { details.open = true; build(); }
  details.addEventListener("toggle", build);
  return details;
}

// Reads JSON text (RFC 8259) into a tree that keeps every key and scalar as written: a number's
// digits (`12345678901234567890`, `1.10`), a string's escapes, members in their order and a
// key named twice with both its values (try11 T11-F5: JSON.parse changed big integers, `1.10`,
// the order of integer-like keys, and showed a repeated key's last value where Catbird's `json`
// and `jsonPath` read the first). Nodes: {kind: "str"|"num"|"lit", lexeme} or
// {kind: "object"|"array", entries: [[keyLexeme or null, node, repeated], …]}; `repeated` is
// "" or says which matchers read an earlier member of that name. Null when the text is not JSON.
// Iterative (an explicit stack), so deep nesting cannot overflow the call stack.
function parseJSONText(text) {
  let i = 0;
  const n = text.length;
  const space = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return;
      i++;
    }
  };
  const string = () => {  // from the opening quote; the lexeme, or null
    const start = i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) return text.slice(start, ++i);
      if (c < 32) return null;
      if (c === 92) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return null;
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return null;
      } else i++;
    }
    return null;
  };
  const digits = () => {
    const start = i;
    while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
    return i > start;
  };
  const scalar = () => {
    const start = i;
    const c = text.charCodeAt(i);
    if (c === 34) {
      const lexeme = string();
      return lexeme === null ? null : { kind: "str", lexeme };
    }
    if (c === 45 || (c >= 48 && c <= 57)) {  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
      if (c === 45) i++;
      if (text.charCodeAt(i) === 48) i++;
      else if (!digits()) return null;
      if (text.charCodeAt(i) === 46) { i++; if (!digits()) return null; }
      if ((text.charCodeAt(i) | 32) === 101) {
        i++;
        if (text.charCodeAt(i) === 43 || text.charCodeAt(i) === 45) i++;
        if (!digits()) return null;
      }
      return { kind: "num", lexeme: text.slice(start, i) };
    }
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, i)) { i += word.length; return { kind: "lit", lexeme: word }; }
    }
    return null;
  };
  const key = (object) => {  // a member name and its colon; false when there is none
    space();
    if (text[i] !== '"') return false;
    const lexeme = string();
    if (lexeme === null) return false;
    space();
    if (text[i++] !== ":") return false;
    object.key = lexeme;
    return true;
  };
  const stack = [];
  for (;;) {
    space();
    let node;
    const c = text[i];
    if (c === "{" || c === "[") {
      i++;
      node = { kind: c === "{" ? "object" : "array", entries: [] };
      space();
      if (text[i] === (c === "{" ? "}" : "]")) i++;
      else {
        if (c === "{" && !key(node)) return null;
        stack.push(node);
        continue;
      }
    } else {
      node = scalar();
      if (node === null) return null;
    }
    // `node` is complete: add it to its container, and close the containers that end here.
    for (;;) {
      if (stack.length === 0) {
        space();
        return i === n ? node : null;
      }
      const parent = stack[stack.length - 1];
      if (parent.kind === "object") {
        parent.entries.push([parent.key, node, repeatedName(parent, parent.key)]);
      } else parent.entries.push([null, node, ""]);
      space();
      const separator = text[i++];
      if (separator === ",") {
        if (parent.kind === "object" && !key(parent)) return null;
        break;
      }
      if (separator !== (parent.kind === "object" ? "}" : "]")) return null;
      stack.pop();
      delete parent.names;
      delete parent.key;
      node = parent;
    }
  }
}

// For a member name of `object` (its lexeme) seen before in that object: which of Catbird's
// matchers read the earlier member instead (docs/matching.md#body-matchers: the first of a
// repeated key counts; `jsonPath` compares names as written, `json` by their characters).
function repeatedName(object, lexeme) {
  const name = JSON.parse(lexeme);
  object.names ??= new Map();
  const earlier = object.names.get(name);
  if (earlier === undefined) {
    object.names.set(name, lexeme);
    return "";
  }
  return earlier === lexeme ? "repeated key: json and jsonPath read the first" : "repeated key: json reads the first";
}

// ---------------------------------------------------------------- copy as curl

// One shell word holding `text` exactly. Plain '…' where that reads as sent; ANSI-C $'…' when
// `text` holds a CR or a bidirectional control: the command box is a textarea, whose value turns
// CRLF and a lone CR into LF (a multipart body, CRLF by RFC 7578, was replayed altered from the
// box, tester finding tester22a-F1), and a raw U+202E reorders the command on screen
// (tester22a-F3). In $'…' a CR is `\r` and a control's UTF-8 bytes are `\xHH` (bash 3.2 and zsh
// read both; bash 3.2 has no `\u`), so the box shows plain ASCII escapes and the shell sends the
// bytes journaled. So are the other control characters but tab and LF (raw terminal escapes in
// a header went into the command: tester finding tester56b-F1) and the line terminators U+0085,
// U+2028 and U+2029, which the box showed as a space (tester56b-F2).
const SHELL_ESCAPED = /[\r\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
function shellQuote(text) {
  text = String(text);
  if (!SHELL_ESCAPED.test(text)) return "'" + text.replace(/'/g, "'\\''") + "'";
  let out = "$'";
  for (const char of text) {
    if (char === "\\" || char === "'") out += "\\" + char;
    else if (char === "\r") out += "\\r";
    else if (SHELL_ESCAPED.test(char)) for (const byte of new TextEncoder().encode(char)) out += "\\x" + byte.toString(16).padStart(2, "0");
    else out += char;
  }
  return out + "'";
}

// curl's method and URL options for a journaled request to this server at `origin`: a HEAD is
// `--head` (with `-X 'HEAD'` curl waits for the body Content-Length announces), unless it has a
// body, which `--head` cannot send (curl refuses both); an origin-form target of visible ASCII
// without `#` is put in the URL; any other is sent as written with `--request-target`: `*` or
// `host:443` (OPTIONS, CONNECT), an absolute URL (proxy form: through `--proxy`, curl rewrote
// it, `http://EXAMPLE.com:80/a` sent as `http://EXAMPLE.com/a`, and sent an `https://` one as
// a CONNECT; tester finding tester29a-F3), a `#` (a fragment curl drops), a space or a control
// character (curl refuses the URL, exit 3; tester22a-F14), a byte outside ASCII (curl
// percent-encodes it in a path: `/café` sent as `/caf%C3%A9`, tester29a-F3).
// A request journaled without a method (`""`: refused before its method was read, a 431 of
// libmicrohttpd's or a head that timed out) gets no `-X`: `-X ''` made curl send a request
// line starting with a space, which no server answers (tester finding tester38a-F5); curl's
// own GET (POST with a body) is sent instead, and the command says so (copyAsCurl).
function curlTarget(method, target, origin, hasBody) {
  const methodParts = method === "" ? [] : method === "HEAD" && !hasBody ? ["--head"] : ["-X", shellQuote(method)];
  if (isOriginForm(target)) return [...methodParts, shellQuote(origin + target)];
  return [...methodParts, "--request-target", shellQuote(target), shellQuote(origin)];
}

// An origin-form target curl sends as written when it is put in the URL.
function isOriginForm(target) {
  return target.startsWith("/") && /^[\x21-\x7e]*$/.test(target) && !target.includes("#");
}

// The fields curl adds on its own that the journaled request did not have, each to be sent as
// `-H 'Name:'` (which removes curl's): User-Agent and Accept always, Content-Type (a form's, for
// --data-raw) and Expect with a body (tester finding tester22a-F2: a body sent without
// Content-Type was replayed with `application/x-www-form-urlencoded`, which a mock's header
// pattern or the app can tell apart), Host where the journaled one is sent (sentHost).
function curlAddedFields(entry, names) {
  const added = ["User-Agent", "Accept"];
  if (entry.request.bodySize > 0) added.push("Content-Type", "Expect");
  if (sentHost(entry)) added.push("Host");
  return added.filter((name) => !names.has(name.toLowerCase()));
}

// Whether the command sends the journaled Host field (or none, when the request had none) in
// place of curl's: for a target not in origin form (`http://api.example.com/x`, `*`,
// `host:443`), whose Host the request chose itself; curl's would name this server. An
// origin-form request's Host named this server as the app reached it, and curl's names it as
// the page does.
function sentHost(entry) {
  return !entry.url.startsWith("/");
}

// Bodies of more UTF-8 bytes than this go into a copied command as base64, not as one
// argument: Linux refuses an argument over 128 KiB (MAX_ARG_STRLEN) with "Argument list too
// long" (try11 T11-F6).
const CURL_ARGUMENT_BYTES = 65536;

// How a copied curl command sends `bytes` exactly: text (decodeText) of at most
// CURL_ARGUMENT_BYTES as one --data-raw argument (not --data-binary: curl reads a value
// starting with `@` as a file name, so a journaled body `@/etc/hostname` uploaded that file,
// try9b F3); any other body, binary or long, as base64 in a here-document that `base64 -d`
// decodes into curl's standard input (`--data-binary @-`), a NUL included, which no shell
// argument can hold. `before` and `after` go around the command.
function curlBody(bytes) {
  const text = decodeText(bytes, true);
  if (text !== null && bytes.length <= CURL_ARGUMENT_BYTES) return { options: ["--data-raw", shellQuote(text)], before: "", after: "" };
  return { options: ["--data-binary", "@-"], before: "base64 -d <<'CATBIRD_BODY' | ", after: "\n" + base64Lines(bytes) + "\nCATBIRD_BODY" };
}

// `bytes` as base64 in lines of 76 characters (what `base64 -d` reads, GNU and macOS alike).
function base64Lines(bytes) {
  const chunk = 3 * 4096;  // a multiple of 3 bytes: the chunks' base64 join without padding
  let encoded = "";
  for (let offset = 0; offset < bytes.length; offset += chunk) {
    encoded += btoa(String.fromCharCode.apply(null, bytes.subarray(offset, offset + chunk)));
  }
  const lines = [];
  for (let offset = 0; offset < encoded.length; offset += 76) lines.push(encoded.slice(offset, offset + 76));
  return lines.join("\n");
}

async function copyAsCurl() {
  const entry = state.detailsEntry;
  if (!entry || entry.id !== state.selected) return;  // the selected entry's details still load
  if (entry.url === "") {
    // The request line never arrived whole (its `problem` says so): nothing to send again.
    await showCurl("# nothing to replay: the request line never arrived whole, so the journal has no method or target for it");
    return;
  }
  // --globoff, --path-as-is: the target as journaled (curl would expand `{b,c}` or `[1-3]` into
  // several requests and drop `/../` segments, T14-F2).
  const hasBody = entry.request.bodySize > 0;
  const parts = ["curl", ...curlTarget(entry.method, entry.url, location.origin, hasBody), "--globoff", "--path-as-is"];
  // One -H per field sent (a repeated name once per value, in order: headerPairs).
  for (const [name, value] of headerPairs(entry.request)) {
    if (/^(content-length|connection)$/i.test(name) || (/^host$/i.test(name) && !sentHost(entry))) continue;
    // curl drops a header written `Name: ` with nothing after it; `Name;` sends it empty.
    parts.push("-H", shellQuote(value === "" ? `${name};` : `${name}: ${value}`));
  }
  const names = new Set(headerPairs(entry.request).map(([name]) => name.toLowerCase()));
  for (const name of curlAddedFields(entry, names)) parts.push("-H", shellQuote(name + ":"));
  let body = { before: "", after: "" };
  if (hasBody) {
    const whole = await api(`/catbird/api/requests/${entry.id}/request/body`, { as: "bytes" });
    body = curlBody(whole.bytes);
    parts.push(...body.options);
    if (entry.method === "HEAD") {
      parts.push("--max-time", "5");
      body.after += "\n# a HEAD with a body: curl's --head sends none, so -X 'HEAD' sends it, and curl then waits"
        + " (up to --max-time) for the body the answer's Content-Length announces";
    }
    if (entry.request.bodyTruncated) body.after += "\n# the journal kept only part of this body";
  }
  if (entry.method === "") {
    body.after += `\n# the journal has no method for this request (it was refused before its method was read); curl sends ${hasBody ? "POST" : "GET"}`;
  }
  if (/its (userinfo and )?query left out of the url|its userinfo left out of the url/.test(entry.problem || "")) {
    // tester58a-F9: the replay sent another request with nothing said (the server's
    // CatbirdHandler.leftOutProblem: a request whose tenant is unknown keeps no query).
    body.after += "\n# the journal left this request's query (or userinfo) out of its url, its tenant being unknown:"
      + " this sends the url without it, another request";
  }
  if ((entry.problem || "").startsWith(NON_TEXT_TARGET_PROBLEM)) {
    // tester39a-F11: its row reads like a request for the escapes themselves, which is what this sends.
    body.after += "\n# the request-target held bytes that are not UTF-8, or a NUL, which the journal wrote as %XX:"
      + " this sends those escapes as text, another request (the original was refused with 400)";
  }
  // Another row opened while the body was read: its details are shown now, and this command
  // is not theirs (tester finding tester57a-F3: the first row's command was shown, and copied,
  // under the second row's details).
  if (state.selected !== entry.id || state.detailsEntry !== entry) return;
  await showCurl(body.before + parts.join(" ") + body.after);
}

// How the journal's `problem` of a request-target that was not text starts (the server's
// CatbirdHandler.nonTextTargetProblem).
const NON_TEXT_TARGET_PROBLEM = "the request-target held bytes that are not UTF-8, or a NUL byte";

// Puts `command` in the command box and on the clipboard (selected in the box when the page
// may not write the clipboard).
async function showCurl(command) {
  const box = $("curl-text");
  box.value = command;
  box.hidden = false;
  try {
    await navigator.clipboard.writeText(command);
    $("curl").textContent = "Copied";
    setTimeout(() => { $("curl").textContent = "Copy as curl"; }, 1500);
  } catch (_) {
    box.select();  // no clipboard access (not a secure context): select it for Ctrl-C
  }
}

// ---------------------------------------------------------------- wiring

function readFilters() {
  state.filters = {
    method: $("filter-method").value, status: $("filter-status").value,
    answeredBy: $("filter-answered").value, url: $("filter-url").value,
  };
  writeURL();
  resetView();
}

function start() {
  readURL();
  let urlTimer = null;
  $("filters").addEventListener("submit", (event) => event.preventDefault());
  for (const id of ["filter-method", "filter-status", "filter-answered"]) $(id).addEventListener("change", readFilters);
  $("filter-url").addEventListener("input", () => { clearTimeout(urlTimer); urlTimer = setTimeout(readFilters, 300); });
  $("tenant-filter").addEventListener("input", () => {
    showTenants();
    // A list cut at TENANTS_SHOWN: ask the server once the typing pauses (one call at a time).
    if (!tenantsMore && !tenantsPrefix) return;
    clearTimeout(tenantPrefixTimer);
    tenantPrefixTimer = setTimeout(refreshTenants, TENANT_PREFIX_WAIT_MS);
  });
  $("pause").addEventListener("click", togglePause);
  $("older").addEventListener("click", loadOlder);
  $("clear").addEventListener("click", askClear);
  $("clear-no").addEventListener("click", cancelClear);
  $("clear-yes").addEventListener("click", confirmClear);
  $("tab-journal").addEventListener("click", () => showTab("journal"));
  $("tab-mocks").addEventListener("click", () => showTab("mocks"));
  $("details-close").addEventListener("click", closeDetails);
  $("curl").addEventListener("click", () => copyAsCurl().catch((error) => notice("Could not build the command: " + error.message)));
  $("rows").addEventListener("click", (event) => {
    const row = event.target.closest("tr");
    if (row) openDetails(Number(row.dataset.id));
  });
  $("token-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    state.token = $("token").value;
    $("token-form").hidden = true;
    // Asked at once with this token (not joined to a listing begun before it): a server answers
    // a wrong token as it answers no token, `"admin": false`, which the page took for "there are
    // no other tenants", kept the token and sent it on every call (tester finding tester22a-F7).
    let accepted = true;
    try {
      accepted = (await api("/catbird/api/tenants?limit=1", { tenant: null })).admin !== false;
    } catch (error) {
      accepted = !(error instanceof APIError && error.status === 401);
    }
    if (accepted) {
      sessionStorage.setItem("catbird.token", state.token);
    } else {
      state.token = "";
      sessionStorage.removeItem("catbird.token");
      $("token-form").hidden = false;
    }
    refreshTenants();
    resetView();  // clears the notice first thing, so the refusal is said after it
    if (!accepted) {
      notice("The admin token was not accepted: the server answered as it answers a caller without one. Check it for a typo; it is not kept.");
    }
  });
  window.addEventListener("popstate", () => { readURL(); resetView(); });
  refreshTenants();
  checkHealth();
  setInterval(() => { if (!document.hidden) { refreshTenants(); checkHealth(); refreshMocks(); } }, TENANTS_REFRESH_MS);
  resetView();
}

start();
