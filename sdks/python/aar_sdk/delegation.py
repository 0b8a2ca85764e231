"""Offline verification of a delegation chain (`ns.delegation_chain.v1`, CONTRACT section 5), ported from core's
delegation/verify-delegation-chain.ts with the same problem codes, so `vectors/delegation` holds both.

Checked for every link, root first: the service signature (trusted keys only; the chain's own `keys.service` is never
trusted), shape, order (root without parent, each link the child of the one before, depth = position, issued after
its parent), attenuation (child ⊆ parent, field by field), delegation limits, entity cycles, the delegator's
statement and signature when present, and expiry at `now`; with a valid document signature, the attested states.
Attacker assumption: `chain` is hostile JSON. Never raises: every problem names the link and the field.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .decide.instant import compare_instants, parse_instant
from .decide.refs import (actions_covered_by, is_purchase_action, parse_card_token_ref, parse_entity_id, same_entity,
                          same_instrument)
from .decide.scope import (ALLOWED_LIST_FIELDS, BUDGET_PERIODS, MONEY_FIELDS, compute_effective_scope, inherit_scope,
                           is_non_negative_safe_integer, is_string_array)
from .jcs import canonical_json
from .jwks import InvalidJwk, TrustedKeys, jwk_thumbprint, look_up_key, parse_public_ed25519_jwk
from .money import InvalidAmount, parse_amount
from .signed_document import verify_document

CHAIN_SCHEMA = "ns.delegation_chain.v1"
LINK_SCHEMA = "ns.authority_grant.v1"
STATEMENT_SCHEMA = "ns.delegation_statement.v1"
MAX_CHAIN_LINKS = 64
STATEMENT_MAX_SKEW_SECONDS = 3600
_NONCE = re.compile(r"[A-Za-z0-9_-]{16,128}")
_STATEMENT_REQUEST_MEMBERS = ("parent_grant_id", "principal_entity_id", "actor_entity_id", "capability_id",
                              "resource_id", "scope")
_KNOWN_SCOPE = set(MONEY_FIELDS) | {"allowed_merchant_categories", "blocked_merchant_categories",
                                    "allowed_jurisdictions", "valid_until", "allowed_actions", "may_delegate",
                                    "max_delegation_depth", "budget", "allowed_merchants"}


@dataclass
class ChainResult:
    valid: bool
    links: list[dict[str, Any]] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)
    document_signed: bool = False
    effective_scope: dict[str, Any] | None = None

    def __bool__(self) -> bool:
        return self.valid


def read_wire_scope(value: Any) -> tuple[dict[str, Any], list[str]]:
    """A link's wire scope (major units, `purchase.` actions) in decide's form, and the malformed or unknown names."""
    if not isinstance(value, dict):
        return {}, ["scope"]
    scope: dict[str, Any] = {}
    malformed = [k for k in value if k not in _KNOWN_SCOPE]
    for key in MONEY_FIELDS:
        if key not in value:
            continue
        money = value[key]
        try:
            if not isinstance(money, dict) or any(k not in ("amount", "currency") for k in money):
                raise InvalidAmount("shape")
            scope[key] = parse_amount(money.get("amount"), money.get("currency"))
        except InvalidAmount:
            malformed.append(key)
    # aar-decide/1.4.0: `{ amount, currency, period }`, money like the limits above plus its period
    if "budget" in value:
        budget = value["budget"]
        try:
            if not isinstance(budget, dict) or any(k not in ("amount", "currency", "period") for k in budget):
                raise InvalidAmount("shape")
            period = budget.get("period")
            if not isinstance(period, str) or period not in BUDGET_PERIODS:
                raise InvalidAmount("period")
            money = parse_amount(budget.get("amount"), budget.get("currency"))
            scope["budget"] = {"minor": money["minor"], "currency": money["currency"], "period": period}
        except InvalidAmount:
            malformed.append("budget")
    for key in ("allowed_merchant_categories", "blocked_merchant_categories", "allowed_jurisdictions",
                "allowed_merchants"):
        if key in value:
            if is_string_array(value[key]):
                scope[key] = list(value[key])
            else:
                malformed.append(key)
    if "allowed_actions" in value:
        actions = value["allowed_actions"]
        bare = [a[len("purchase."):] if a.startswith("purchase.") else "" for a in actions] \
            if is_string_array(actions) else None
        if bare is not None and all(is_purchase_action(a) for a in bare):
            scope["allowed_actions"] = bare
        else:
            malformed.append("allowed_actions")
    if "valid_until" in value:
        if isinstance(value["valid_until"], str) and parse_instant(value["valid_until"]):
            scope["valid_until"] = value["valid_until"]
        else:
            malformed.append("valid_until")
    if "may_delegate" in value:
        if isinstance(value["may_delegate"], bool):
            scope["may_delegate"] = value["may_delegate"]
        else:
            malformed.append("may_delegate")
    if "max_delegation_depth" in value:
        d = value["max_delegation_depth"]
        if is_non_negative_safe_integer(d):
            scope["max_delegation_depth"] = d
        else:
            malformed.append("max_delegation_depth")
    return scope, malformed


def _effective_of(scopes: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for own in scopes:
        out = inherit_scope(out, own)
    return out


def _fmt(m: dict[str, Any]) -> str:
    from .money import format_money
    try:
        return format_money(m["minor"], m["currency"])
    except Exception:  # noqa: BLE001
        return f"{m['minor']} minor units of {m['currency']}"


def _attenuation(child: dict[str, Any], ancestors: list[dict[str, Any]]) -> list[tuple[str, str]]:
    parent = ancestors[-1]
    out: list[tuple[str, str]] = []
    if not same_entity(child["principal_entity_id"], parent["principal_entity_id"]):
        out.append(("/principal_entity_id", "must be the parent's principal"))
    if not same_instrument(child["resource_id"], parent["resource_id"]):
        out.append(("/resource_id", "must be the parent's card token"))
    pa, ca = actions_covered_by(parent["capability_id"]), actions_covered_by(child["capability_id"])
    if not ca or not all(a in pa for a in ca):
        out.append(("/capability_id", f"must be `{parent['capability_id']}` or one of its sub-capabilities"))
    scopes = [a["scope"] for a in ancestors]
    own, effective, intersection = child["scope"], _effective_of(scopes), compute_effective_scope(scopes)
    currency = next((effective[k]["currency"] for k in MONEY_FIELDS if k in effective), None)
    if currency is None and "budget" in effective:
        currency = effective["budget"]["currency"]
    for key in MONEY_FIELDS:
        if key not in own:
            continue
        c, p = own[key], effective.get(key)
        if currency is not None and c["currency"] != currency:
            out.append((f"/scope/{key}/currency", f"must be `{currency}`, the currency of the parent's limits"))
        elif p is not None and c["minor"] > p["minor"]:
            out.append((f"/scope/{key}", f"must be at most {_fmt(p)}, the parent's"))
    if "budget" in own:
        c, p = own["budget"], effective.get("budget")
        if currency is not None and c["currency"] != currency:
            out.append(("/scope/budget/currency", f"must be `{currency}`, the currency of the parent's limits"))
        elif p is not None and c["minor"] > p["minor"]:
            out.append(("/scope/budget", f"must be at most {_fmt(p)}, the parent's budget (per {p['period']})"))
    if "valid_until" in own and "valid_until" in effective:
        c_at, p_at = parse_instant(own["valid_until"]), parse_instant(effective["valid_until"])
        if c_at and p_at and compare_instants(c_at, p_at) > 0:
            out.append(("/scope/valid_until", "must be at or before the parent's"))
    for key in ALLOWED_LIST_FIELDS:
        if key in own and key in effective:
            extra = [i for i in own[key] if i not in effective[key]]
            if extra:
                out.append((f"/scope/{key}", "may not add " + ", ".join(f"`{e}`" for e in extra)))
    if "blocked_merchant_categories" in own and "blocked_merchant_categories" in effective:
        unblocked = [i for i in effective["blocked_merchant_categories"] if i not in own["blocked_merchant_categories"]]
        if unblocked:
            out.append(("/scope/blocked_merchant_categories", "must keep blocking " + ", ".join(unblocked)))
    if own.get("may_delegate") is True and effective.get("may_delegate") is False:
        out.append(("/scope/may_delegate", "the parent may not be delegated further"))
    remaining, depth = intersection.get("max_delegation_depth"), own.get("max_delegation_depth")
    if depth is not None and remaining is not None and depth > max(0, remaining - 1):
        out.append(("/scope/max_delegation_depth", f"must be at most {max(0, remaining - 1)}"))
    return out


def _delegation_limit(ancestors: list[dict[str, Any]]) -> tuple[str, int, int] | None:
    if _effective_of(ancestors).get("may_delegate") is not True:
        return ("not_delegable", -1, -1)
    child_depth = len(ancestors)
    for index, scope in enumerate(ancestors):
        limit = scope.get("max_delegation_depth")
        if limit is not None and child_depth - index > limit:
            return ("too_deep", index, limit)
    return None


def _statement_mismatches(statement: Any, link: dict[str, Any], parent: dict[str, Any]) -> list[str]:
    if not isinstance(statement, dict):
        return [""]
    out: list[str] = []
    if statement.get("schema_version") != STATEMENT_SCHEMA:
        out.append("/schema_version")
    delegator = statement.get("delegator_entity_id")
    if not same_entity(delegator, link.get("delegator_entity_id")) or not same_entity(delegator, parent.get("actor_entity_id")):
        out.append("/delegator_entity_id")
    created, issued = parse_instant(statement.get("created")), parse_instant(link.get("issued_at"))
    if not created or not issued or abs(issued.seconds - created.seconds) > STATEMENT_MAX_SKEW_SECONDS:
        out.append("/created")
    nonce = statement.get("nonce")
    if not isinstance(nonce, str) or not _NONCE.fullmatch(nonce):
        out.append("/nonce")
    request = statement.get("request")
    if not isinstance(request, dict):
        return [*out, "/request"]
    out += [f"/request/{k}" for k in request if k not in _STATEMENT_REQUEST_MEMBERS]
    if request.get("parent_grant_id", _MISSING) != link.get("parent_grant_id", _MISSING):
        out.append("/request/parent_grant_id")
    if not same_entity(request.get("actor_entity_id"), link.get("actor_entity_id")):
        out.append("/request/actor_entity_id")
    if "principal_entity_id" in request and not same_entity(request["principal_entity_id"], link.get("principal_entity_id")):
        out.append("/request/principal_entity_id")
    capability = request.get("capability_id", parent.get("capability_id"))
    if capability != link.get("capability_id"):
        out.append("/request/capability_id")
    if "resource_id" in request and not same_instrument(request["resource_id"], link.get("resource_id")):
        out.append("/request/resource_id")
    a, am = read_wire_scope(request.get("scope", {}))
    b, bm = read_wire_scope(link.get("scope"))
    if am or bm:
        out.append("/request/scope")
    else:
        differ = []
        for key in set(a) | set(b):
            x, y = a.get(key), b.get(key)
            if key == "valid_until":
                px, py = parse_instant(x), parse_instant(y)
                same = px is not None and py is not None and compare_instants(px, py) == 0
            else:
                same = x is not None and y is not None and canonical_json(x) == canonical_json(y)
            if not same:
                differ.append(f"/request/scope/{key}")
        out += sorted(differ)
    return out


_MISSING = object()


def _verify_link_delegation(delegation: Any, link: dict[str, Any], parent: dict[str, Any], listed: Any) -> list[tuple[str, str]]:
    if not isinstance(delegation, dict):
        return [("delegator_signature_invalid", "/delegation")]
    try:
        key = parse_public_ed25519_jwk(delegation.get("delegator_key"))
    except InvalidJwk:
        return [("delegator_signature_invalid", "/delegation/delegator_key")]
    kid = key.get("kid")
    if kid is None or not same_entity(kid, parent.get("actor_entity_id")):
        return [("delegator_mismatch", "/delegation/delegator_key/kid")]
    problems = []
    if jwk_thumbprint(key) != delegation.get("delegator_key_thumbprint"):
        problems.append(("delegator_key_mismatch", "/delegation/delegator_key_thumbprint"))
    keys = [k for k in listed if isinstance(k, dict) and same_entity(k.get("kid"), kid)] if isinstance(listed, list) else []
    if any(k.get("x") != key["x"] for k in keys):
        problems.append(("delegator_key_mismatch", "/delegation/delegator_key"))
    statement = delegation.get("statement")
    if not verify_document(statement, lambda i: key if i == kid else None).valid:
        problems.append(("delegator_signature_invalid", "/delegation/statement/signature"))
    for pointer in _statement_mismatches(statement, link, parent):
        problems.append(("statement_mismatch", f"/delegation/statement{pointer}"))
    return problems


def _malformed_fields(link: dict[str, Any]) -> list[str]:
    out = []
    if link.get("schema_version") != LINK_SCHEMA:
        out.append("/schema_version")
    gid = link.get("grant_id")
    if not (isinstance(gid, str) and gid.startswith("ns:authority:grant:")):
        out.append("/grant_id")
    pid = link.get("parent_grant_id", _MISSING)
    if pid is not None and not (isinstance(pid, str) and pid):
        out.append("/parent_grant_id")
    if not parse_entity_id(link.get("principal_entity_id")):
        out.append("/principal_entity_id")
    if not parse_entity_id(link.get("actor_entity_id")):
        out.append("/actor_entity_id")
    if not isinstance(link.get("capability_id"), str) or not actions_covered_by(link.get("capability_id")):
        out.append("/capability_id")
    if parse_card_token_ref(link.get("resource_id")) is None:
        out.append("/resource_id")
    d = link.get("depth")
    if not (type(d) is int and d >= 0):
        out.append("/depth")
    if not parse_instant(link.get("issued_at")):
        out.append("/issued_at")
    out += ["/scope" if n == "scope" else f"/scope/{n}" for n in read_wire_scope(link.get("scope"))[1]]
    return out


def verify_delegation_chain(chain: Any, trusted: TrustedKeys, now: str | None = None, *,
                            max_links: int = MAX_CHAIN_LINKS) -> ChainResult:
    """`now` (ISO 8601) is the instant expiry is judged at; omitted (None), the system clock (as in the other SDKs)."""
    if now is None:
        now = _utc_now_iso()
    try:
        return _verify(chain, trusted, now, max_links)
    except Exception:  # noqa: BLE001 - hostile shapes: the chain is refused as a whole
        return ChainResult(False, [], [_problem("malformed_chain", None, None, None, "the chain cannot be read")])


def _utc_now_iso() -> str:
    """The clock as core's `new Date().toISOString()` writes it: UTC, milliseconds, `Z`."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _problem(code: str, index: int | None, grant_id: str | None, fld: str | None, message: str) -> dict[str, Any]:
    return {"code": code, "index": index, "grant_id": grant_id, "field": fld, "message": message}


def _verify(chain: Any, trusted: TrustedKeys, now: str, max_links: int) -> ChainResult:
    problems: list[dict[str, Any]] = []
    if not isinstance(chain, dict) or chain.get("schema_version") != CHAIN_SCHEMA:
        return ChainResult(False, [], [_problem("malformed_chain", None, None, "/schema_version", "is not the chain schema")])
    links = chain.get("links")
    if not isinstance(links, list) or not links:
        return ChainResult(False, [], [_problem("malformed_chain", None, None, "/links", "must be a non-empty array")])
    if len(links) > max_links:
        return ChainResult(False, [], [_problem("too_many_links", None, None, "/links", f"at most {max_links}")])
    at = parse_instant(now)
    if not at:
        problems.append(_problem("malformed_chain", None, None, None, "`now` is not an iso 8601 timestamp"))
    has_sig = "signature" in chain
    signed = has_sig and verify_document(chain, trusted).valid
    if has_sig and not signed:
        problems.append(_problem("document_signature_invalid", None, None, "/signature", "does not verify"))
    states = chain.get("states") if signed else None
    listed = chain.get("keys", {}).get("delegators") if isinstance(chain.get("keys"), dict) else None
    read: list[dict[str, Any]] = []
    reports: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, link in enumerate(links):
        rec = link if isinstance(link, dict) else {}
        gid = rec.get("grant_id")
        grant_id = gid if isinstance(gid, str) and gid else None
        scope, bad_scope = read_wire_scope(rec.get("scope"))
        well = (parse_entity_id(rec.get("principal_entity_id")) is not None and
                parse_entity_id(rec.get("actor_entity_id")) is not None and
                parse_card_token_ref(rec.get("resource_id")) is not None and
                isinstance(rec.get("capability_id"), str) and not bad_scope)
        current = {"grant_id": grant_id, "facts": rec, "issued_at": parse_instant(rec.get("issued_at")),
                   "terms": {"principal_entity_id": rec.get("principal_entity_id"), "capability_id": rec.get("capability_id"),
                             "resource_id": rec.get("resource_id"), "scope": scope} if well else None}
        read.append(current)
        actor = rec.get("actor_entity_id")
        report = {"index": index, "grant_id": grant_id, "actor_entity_id": actor if isinstance(actor, str) else None,
                  "delegator_signed": False, "state": None, "revoked_at": None}
        reports.append(report)

        def add(code: str, fld: str | None, message: str, _i: int = index, _g: str | None = grant_id) -> None:
            problems.append(_problem(code, _i, _g, fld, message))

        if not isinstance(link, dict):
            add("malformed_link", "", "is not an object")
            continue
        sig = verify_document(link, trusted)
        if not sig.valid:
            add("link_signature_invalid", "/signature", f"does not verify ({sig.failure})")
        else:
            retired = _retired_before(trusted, sig.key_id, current["issued_at"])
            if retired:
                add("link_signature_invalid", "/signature/key_id", f"the key was retired at `{retired}`")
        for fld in _malformed_fields(link):
            add("malformed_link", fld, "is missing or malformed")
        if grant_id is not None:
            if grant_id in seen:
                add("repeated_link", "/grant_id", "the grant appears twice in the chain")
            seen.add(grant_id)
        depth = link.get("depth")
        if not (type(depth) in (int, float) and not isinstance(depth, bool) and depth == index):
            add("wrong_depth", "/depth", f"is not the link's position {index}")
        if index == 0:
            if link.get("parent_grant_id", _MISSING) is not None:
                add("not_a_root", "/parent_grant_id", "the first link must be a root grant")
            if "delegator_entity_id" in link or "delegation" in link:
                add("malformed_link", "/delegation", "a root grant has no delegator")
        else:
            parent = read[index - 1]
            _check_against_parent(link, current, parent, read[:index], add)
            if "delegator_entity_id" in link and not same_entity(link["delegator_entity_id"], parent["facts"].get("actor_entity_id")):
                add("delegator_mismatch", "/delegator_entity_id", "is not the parent's actor")
            if "delegation" in link:
                found = _verify_link_delegation(link["delegation"], link, parent["facts"], listed)
                for code, fld in found:
                    add(code, fld, "see code")
                report["delegator_signed"] = not found
        earlier = [read[0]["facts"].get("principal_entity_id"), *[r["facts"].get("actor_entity_id") for r in read[:-1]]]
        if any(same_entity(e, actor) for e in earlier):
            add("entity_cycle", "/actor_entity_id", f"`{actor}` already holds authority in this chain")
        until = parse_instant(current["terms"]["scope"].get("valid_until")) if current["terms"] else None
        if at and until and compare_instants(until, at) <= 0:
            add("expired", "/scope/valid_until", "expired")
        if signed:
            state = states[index] if isinstance(states, list) and index < len(states) else None
            if not isinstance(state, dict) or state.get("grant_id") != grant_id or not isinstance(state.get("state"), str):
                problems.append(_problem("malformed_chain", None, None, f"/states/{index}", "does not give the state of this link"))
            else:
                report["state"] = state["state"]
                # the moment of the revocation the signed document attests; `as_of` only says when it was read
                report["revoked_at"] = state["revoked_at"] if isinstance(state.get("revoked_at"), str) else None
                if state["state"] != "active":
                    add("revoked", None, f"was `{state['state']}` at `{chain.get('as_of')}`")
    root, leaf = read[0]["grant_id"], read[-1]["grant_id"]
    expected = {"root_grant_id": root, "leaf_grant_id": leaf,
                "delegation_id": ("ns:delegation:" + leaf[len("ns:authority:grant:"):])
                if leaf and leaf.startswith("ns:authority:grant:") else None}
    for name, want in expected.items():
        if name in chain and chain[name] != want:
            problems.append(_problem("leaf_mismatch", None, None, f"/{name}", "does not name the chain's end"))
    terms = [r["terms"] for r in read]
    effective = compute_effective_scope([t["scope"] for t in terms]) if all(t is not None for t in terms) else None
    return ChainResult(not problems, reports, problems, signed, effective)


def _check_against_parent(link: dict[str, Any], current: dict[str, Any], parent: dict[str, Any],
                          ancestors: list[dict[str, Any]], add: Any) -> None:
    if link.get("parent_grant_id", _MISSING) != parent["grant_id"]:
        add("wrong_parent", "/parent_grant_id", "is not the link before it")
    if current["issued_at"] and parent["issued_at"] and compare_instants(current["issued_at"], parent["issued_at"]) < 0:
        add("issued_before_parent", "/issued_at", "is earlier than the parent link")
    terms = [a["terms"] for a in ancestors]
    if current["terms"] is None or any(t is None for t in terms):
        return
    limit = _delegation_limit([t["scope"] for t in terms])
    if limit and limit[0] == "not_delegable":
        add("not_delegable", "/parent_grant_id", "the parent may not be delegated")
    elif limit:
        add("too_deep", "/depth", f"link {limit[1]} allows {limit[2]} level(s) of delegation below it")
    codes = {"/principal_entity_id": "principal_mismatch", "/resource_id": "instrument_mismatch",
             "/capability_id": "capability_wider"}
    for path, message in _attenuation(current["terms"], terms):
        add(codes.get(path, "scope_wider"), path, message)


def _retired_before(trusted: TrustedKeys, key_id: str | None, issued_at: Any) -> str | None:
    if not key_id or not issued_at:
        return None
    try:
        entry = look_up_key(trusted, key_id)
    except Exception:  # noqa: BLE001 - an unknown or ambiguous key already failed the signature check
        return None
    until = entry.get("valid_until") if isinstance(entry, dict) else None
    until_at = parse_instant(until)
    return str(until) if until_at and compare_instants(issued_at, until_at) > 0 else None
