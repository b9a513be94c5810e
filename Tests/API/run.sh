#!/usr/bin/env bash
# The control API's document and exports, checked against a real `catbird serve` on loopback
# (run by scripts/test after the Swift build):
#   openapi_test.py   GET /catbird/api/openapi.json: a valid OpenAPI 3.1 document; every example
#                     validates against its schema; every operation's example request is accepted
#                     by the server and its answer matches the documented schema; Schemathesis
#                     fuzzes every operation (no 5xx, no hang, the server still serves afterwards)
#   har_test.py       GET /catbird/api/requests.har: HAR 1.2 by a JSON Schema of the spec's fields,
#                     the journal's filters, and streaming (a large journal, bounded server memory)
#
# Installs the PyPI packages in requirements.txt into .build/api-venv when missing; where they
# cannot be installed (no network) the tests are skipped with a message saying so.
# Usage: Tests/API/run.sh [catbird binary]   (default: the debug build's)
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Tests/API
catbird=${1:-$(swift build --show-bin-path)/catbird}
[ -x "$catbird" ] || { echo "api tests: no catbird binary at $catbird; run swift build first" >&2; exit 2; }

venv=.build/api-venv
if ! "$venv/bin/python" -c 'import jsonschema, openapi_spec_validator, schemathesis' 2>/dev/null; then
    echo "api tests: installing $(grep -c '^[a-z]' "$here/requirements.txt") PyPI packages into $venv" >&2
    { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"; } || {
        echo "api tests: SKIPPED: could not install $here/requirements.txt from PyPI" >&2
        exit 0
    }
fi
"$venv/bin/python" "$here/har_test.py" --catbird "$catbird"
"$venv/bin/python" "$here/openapi_test.py" --catbird "$catbird" --schemathesis "$venv/bin/schemathesis"
