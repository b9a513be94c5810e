"""Schemathesis hooks for openapi_test.py: the document says truthfully that a long poll may
wait 60 s and a request wait 300 s; the fuzzing keeps those waits under a second so the run
stays short. No operation is left out and no value is changed but the waiting time."""

import schemathesis

LONGEST_WAIT = 0.5


def shortened(value):
    """`value` clamped to LONGEST_WAIT when it is a number above it; anything else unchanged
    (a value that is not a number must still reach the server, which answers 400)."""
    if isinstance(value, bool):
        return value
    try:
        return LONGEST_WAIT if float(value) > LONGEST_WAIT else value
    except (TypeError, ValueError, OverflowError):
        return value


@schemathesis.hook
def before_call(context, case, kwargs):
    if isinstance(case.query, dict) and "wait" in case.query:
        case.query["wait"] = shortened(case.query["wait"])
    if isinstance(case.body, dict) and "timeout" in case.body:
        case.body["timeout"] = shortened(case.body["timeout"])
