"""aar-decide/1.4.0 in the Python port (issue 29): budget periods at their edges, and the new reasons failing closed
on facts core's vectors cannot hold (a missing `budget_spent`, a malformed mandate binding)."""
import copy
from datetime import datetime, timedelta, timezone

import pytest

from aar_sdk.decide import budget_period_start, decide
from conftest import VECTORS, load

EDGES = [
    ("day", "2026-04-16T01:30:00+02:00", "2026-04-15"),
    ("day", "2026-04-15T22:30:00-02:00", "2026-04-16"),
    ("week", "2026-04-15T10:00:00Z", "2026-04-13"),
    ("week", "2026-01-01T12:00:00Z", "2025-12-29"),
    ("week", "2026-01-05T00:00:00Z", "2026-01-05"),
    ("week", "2026-03-01T08:00:00Z", "2026-02-23"),
    ("week", "2032-02-29T12:00:00Z", "2032-02-23"),
    ("week", "1970-01-01T00:00:00Z", "1969-12-29"),
    ("month", "2028-02-29T23:59:59Z", "2028-02-01"),
    ("month", "2026-05-01T00:30:00+01:00", "2026-04-01"),
    ("year", "2026-12-31T23:59:59.999Z", "2026-01-01"),
    ("year", "2027-01-01T00:30:00+01:00", "2026-01-01"),
    ("total", "2026-04-15T10:00:00Z", None),
]


@pytest.mark.parametrize("period,now,want", EDGES)
def test_budget_period_start_at_edges(period, now, want):
    assert budget_period_start(period, now) == want


def test_budget_period_start_agrees_with_datetime_over_four_years():
    start = datetime(2027, 1, 1, 12, tzinfo=timezone.utc)
    for d in range(4 * 366):
        at = start + timedelta(days=d)
        iso = at.strftime("%Y-%m-%dT%H:%M:%SZ")
        assert budget_period_start("day", iso) == at.date().isoformat()
        assert budget_period_start("month", iso) == at.date().replace(day=1).isoformat()
        assert budget_period_start("year", iso) == at.date().replace(month=1, day=1).isoformat()
        assert budget_period_start("week", iso) == (at.date() - timedelta(days=at.weekday())).isoformat()


def test_budget_period_start_refuses_bad_input():
    for period, now in [("fortnight", "2026-04-15T10:00:00Z"), ("day", "2026-04-15"), ("total", "later")]:
        with pytest.raises(ValueError):
            budget_period_start(period, now)


def _case(name):
    return copy.deepcopy(load(VECTORS / "decisions" / name)["input"])


def _failed(result):
    return next(c for c in result["diagnostics"]["checks"] if c["outcome"] == "fail")


def test_missing_or_malformed_budget_spent_fails_closed():
    for spent in ["missing", None, "lots", {"minor": -1, "currency": "EUR"}, {"minor": 10, "currency": "USD"}]:
        given = _case("allow-budget-reached-exactly.json")
        grant = given["snapshot"]["grants"][0]
        if spent == "missing":
            del grant["budget_spent"]
        else:
            grant["budget_spent"] = spent
        got = decide(given["request"], given["snapshot"], given["now"])
        assert got["reason"] == "budget_exceeded", spent
        assert "budget_spent is missing or malformed" in _failed(got)["detail"]


def test_malformed_mandate_binding_is_delegation_invalid():
    for mandate in [None, "ns:mandate:x", {"mandate_id": "ns:mandate:x", "format": "vi", "digest": "d",
                                          "single_use": False, "used": False},
                    {"mandate_id": "ns:mandate:x", "format": "ap2", "digest": "d", "single_use": 1, "used": False}]:
        given = _case("allow-mandate-grant-within-budget.json")
        given["snapshot"]["grants"][1]["mandate"] = mandate
        got = decide(given["request"], given["snapshot"], given["now"])
        assert got["reason"] == "delegation_invalid"
        assert _failed(got)["detail"].endswith("has malformed mandate")


def test_new_reasons_name_the_grant_and_mandate():
    got = decide(**dict(zip(("request", "snapshot", "now"), _unpack("deny-mandate-revoked.json"))))
    assert _failed(got)["detail"] == ("mandate `ns:mandate:01963a4f-0a00-7c00-8a00-000000000001` of grant "
                                      "`ns:authority:grant:01963a4e-bf33-7e6d-8c43-5d7e9f1a3b04` is `revoked`")
    got = decide(*_unpack("deny-budget-exceeded.json"))
    assert _failed(got)["detail"] == "over grant `ns:authority:grant:01963a4e-8c00-7b3a-9f10-2a4b6c8d0e01` budget (month)"
    allowed = decide(*_unpack("allow-mandate-grant-within-budget.json"))
    assert allowed["effective_scope"]["budget"] == {"minor": 20000, "currency": "EUR", "period": "total"}
    assert allowed["effective_scope"]["allowed_merchants"] == ["grocer-berlin"]


def _unpack(name):
    given = _case(name)
    return given["request"], given["snapshot"], given["now"]
