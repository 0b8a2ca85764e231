"""The two delegation checks (core's delegation-checks.ts), from one run of verify_delegation_chain at decision time,
its problems split by kind: signatures and shape (delegation_chain_signatures), the child ⊆ parent rules and order
(delegation_attenuation). Expiry, revocation and retired keys are temporal_validity's. Both also bind the chain to
the decision: it must be the chain the decision read, and the scope snapshot must state the same links' own scopes
and their intersection."""
from __future__ import annotations

from typing import Any

from ..delegation import read_wire_scope
from .checks import MISSING, Outcome, Passed, own
from .context import BundleContext
from .same_json import same_json

SIGNATURE_PROBLEMS = frozenset({
    "malformed_chain", "too_many_links", "document_signature_invalid", "leaf_mismatch", "malformed_link",
    "link_signature_invalid", "delegator_signature_invalid", "delegator_key_mismatch", "statement_mismatch",
})

ATTENUATION_PROBLEMS = frozenset({
    "not_a_root", "wrong_parent", "repeated_link", "wrong_depth", "issued_before_parent", "entity_cycle",
    "principal_mismatch", "instrument_mismatch", "capability_wider", "scope_wider", "not_delegable", "too_deep",
    "delegator_mismatch",
})


def is_retired_key_problem(problem: dict[str, Any]) -> bool:
    """A link signed by a key retired before the link was issued: a question of time, not of bytes."""
    return problem.get("code") == "link_signature_invalid" and problem.get("field") == "/signature/key_id"


def _describe(problems: list[dict[str, Any]]) -> str:
    out = []
    for p in problems[:5]:
        at = "" if p.get("index") is None else f" at link {p['index']}"
        fld = f" {p['field']}" if p.get("field") else ""
        out.append(f"{p['code']}{at}{fld}")
    return ", ".join(out)


def _chain_link_ids(chain: Any) -> list[Any]:
    links = own(chain, "links")
    return [own(link, "grant_id") for link in links] if isinstance(links, list) else []


def check_delegation_chain_signatures(ctx: BundleContext, origin: str | None) -> Outcome:
    doc = ctx.part("delegation_chain")
    if ctx.deciding_chain is None:
        return "the evidence pack does not say which grant chain decided"
    if not ctx.deciding_chain:
        if doc is None:
            return Passed("the decision read no grant: no chain")
        return "the decision read no grant, yet the bundle carries a chain"
    if not isinstance(doc, dict) or ctx.chain is None:
        return "the bundle has no delegation chain"
    problems = [p for p in ctx.chain.problems if p["code"] in SIGNATURE_PROBLEMS and not is_retired_key_problem(p)]
    if problems:
        return f"the chain does not verify: {_describe(problems)}"
    if not ctx.chain.document_signed:
        return "the chain carries no service signature over its states"
    if not same_json(_chain_link_ids(doc), ctx.deciding_chain):
        return "the chain is not the one the decision read"
    delegated = sum(1 for link in ctx.chain.links if link.get("delegator_signed"))
    return Passed(f"{len(ctx.chain.links)} link(s) signed; {delegated} delegator statement(s) verified")


def check_delegation_attenuation(ctx: BundleContext, origin: str | None) -> Outcome:
    doc = ctx.part("delegation_chain")
    scope = ctx.part("scope_snapshot")
    if ctx.deciding_chain is None:
        return "the evidence pack does not say which grant chain decided"
    if not ctx.deciding_chain:
        if own(scope, "effective_scope") is None and same_json(own(scope, "links"), []):
            return Passed("no chain, an empty scope snapshot")
        return "the scope snapshot is not empty, yet the decision read no grant"
    if not isinstance(doc, dict) or ctx.chain is None:
        return "the bundle has no delegation chain"
    problems = [p for p in ctx.chain.problems if p["code"] in ATTENUATION_PROBLEMS]
    if problems:
        return f"a link is not within its parent: {_describe(problems)}"
    # the scope snapshot states the chain's links, each with the link's own signed scope, and their intersection
    links = own(scope, "links")
    chain_links = own(doc, "links")
    if not isinstance(links, list) or not isinstance(chain_links, list) or len(links) != len(chain_links):
        return "the scope snapshot does not list the chain links"
    for i, link in enumerate(links):
        if own(link, "grant_id") is MISSING or own(link, "grant_id") != own(chain_links[i], "grant_id"):
            return f"scope snapshot link {i} is another grant"
        if not same_json(own(link, "scope"), own(chain_links[i], "scope")):
            return f"scope snapshot link {i} differs from the signed link's scope"
    effective, malformed = read_wire_scope(own(scope, "effective_scope"))
    if malformed or not same_json(effective, ctx.chain.effective_scope):
        return "the scope snapshot's effective scope is not the intersection of the chain's links"
    return Passed("every link within its parent; the effective scope is the links' intersection")
