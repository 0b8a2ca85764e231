"""Delegation links with the aar-decide/1.4.0 scope members (issue 29): read like core's read-wire-scope.ts, judged
like core's find-attenuation-violations.ts (paths and messages identical)."""
from aar_sdk.delegation import _attenuation, read_wire_scope

PRINCIPAL, CARD, PURCHASE = "ns:entity:person:alice", "ns:credential:card-token:tok-1", "ns:capability:payment_action:card_purchase"
ROOT = {"max_amount_per_purchase": {"amount": 100, "currency": "EUR"}, "max_daily_amount": {"amount": 300, "currency": "EUR"},
        "budget": {"amount": 1000, "currency": "EUR", "period": "month"}, "allowed_merchants": ["grocer-berlin", "bakery-paris"],
        "may_delegate": True}


def terms(wire):
    scope, malformed = read_wire_scope(wire)
    assert malformed == []
    return {"principal_entity_id": PRINCIPAL, "capability_id": PURCHASE, "resource_id": CARD, "scope": scope}


def test_reads_budget_and_merchants():
    assert read_wire_scope({"budget": {"amount": 12.345, "currency": "BHD", "period": "week"}, "allowed_merchants": ["a"]}) == (
        {"budget": {"minor": 12345, "currency": "BHD", "period": "week"}, "allowed_merchants": ["a"]}, [])
    for budget in [{"amount": 10, "currency": "EUR"}, {"amount": 10, "currency": "EUR", "period": "fortnight"},
                   {"amount": 10.001, "currency": "EUR", "period": "day"}, {"minor": 1000, "currency": "EUR", "period": "day"}]:
        assert read_wire_scope({"budget": budget})[1] == ["budget"]
    assert read_wire_scope({"allowed_merchants": "x"})[1] == ["allowed_merchants"]


def test_attenuation_names_budget_and_merchants():
    parent = terms(ROOT)
    assert _attenuation(terms({"budget": {"amount": 5, "currency": "EUR", "period": "day"}, "allowed_merchants": ["bakery-paris"]}), [parent]) == []
    assert _attenuation(terms({"budget": {"amount": 2000, "currency": "EUR", "period": "year"},
                               "allowed_merchants": ["grocer-berlin", "casino-online"]}), [parent]) == [
        ("/scope/budget", "must be at most 1000.00 EUR, the parent's budget (per month)"),
        ("/scope/allowed_merchants", "may not add `casino-online`"),
    ]
    assert _attenuation(terms({"budget": {"amount": 5, "currency": "USD", "period": "day"}}), [parent]) == [
        ("/scope/budget/currency", "must be `EUR`, the currency of the parent's limits")]
