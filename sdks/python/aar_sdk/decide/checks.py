"""The eight checks of CONTRACT section 3, in order, ported line by line from core's decide/checks/. Each reads the
context and answers a verdict; none trusts the snapshot (it may be edited JSON from an evidence pack).
Attacker assumption as in core: every value may be of any JSON type; a value of the wrong type fails its check."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from .instant import Instant, compare_instants, parse_instant
from .js import (UNDEFINED, get, includes, is_record, is_safe_integer, js_string, json_stringify, strict_eq, utf16_len,
                 utf16_slice)
from .refs import (MONEY_MOVING_ACTIONS, action_from_subject, actions_covered_by, same_entity, same_instrument)
from .scope import (MONEY_FIELDS, find_malformed_scope_fields, find_wider_fields, inherit_scope, is_minor_money,
                    is_non_negative_safe_integer, known_scope_fields)

_CURRENCY = re.compile(r"[A-Z]{3}")


@dataclass
class Context:
    request: dict[str, Any]
    snapshot: dict[str, Any]
    now: Instant | None
    action: str | None
    basket: dict[str, str]
    grants: list[dict[str, Any]] = field(default_factory=list)
    scopes: list[dict[str, Any]] | None = None
    risk_elevated: bool = False


Verdict = dict[str, Any]


def fail(reason: str, detail: str) -> Verdict:
    return {"outcome": "fail", "reason": reason, "detail": detail}


def passed(detail: str | None = None) -> Verdict:
    return {"outcome": "pass"} if detail is None else {"outcome": "pass", "detail": detail}


def quote(value: Any) -> str:
    """A value from input quoted for a detail string, bounded (core's `quote`)."""
    text = value if isinstance(value, str) else (json_stringify(value) or js_string(value))
    if utf16_len(text) > 80:
        text = utf16_slice(text, 77) + "..."
    return f"`{text}`"


def id_of(grants: list[dict[str, Any]], index: int) -> str:
    return quote(get(grants[index], "grant_id") if 0 <= index < len(grants) else UNDEFINED)


def _money_moving(ctx: Context) -> bool:
    return ctx.action is None or ctx.action in MONEY_MOVING_ACTIONS


# Step 1 ---------------------------------------------------------------------------------------------------------
def check_payload(ctx: Context) -> Verdict:
    payload = get(ctx.snapshot, "payload")
    if not is_record(payload):
        return fail("payload_signature_missing", "snapshot has no payload facts")
    required = get(payload, "required")
    if required is not False:
        if get(payload, "present") is not True:
            return fail("payload_signature_missing", "request is not signed")
        if get(payload, "signature_valid") is not True:
            return fail("payload_signature_invalid", _invalid_detail(payload))
        stale = _find_staleness(get(payload, "created"), get(payload, "window_seconds"), ctx)
        if stale:
            return fail("payload_stale", stale)
        if get(payload, "nonce_fresh") is not True:
            return fail("payload_replayed", "nonce was already used within the window")
    if ctx.basket.get("problem"):
        return fail("payload_signature_invalid", ctx.basket["problem"])
    if required is False:
        if ctx.basket.get("hash"):
            return passed("signature not required; basket hash bound")
        return {"outcome": "skip", "detail": "signature not required"}
    return passed()


def _find_staleness(created: Any, window: Any, ctx: Context) -> str | None:
    if ctx.now is None:
        return "`now` is not a valid timestamp"
    if not is_safe_integer(created):
        return "signature has no integer `created` time"
    if not is_non_negative_safe_integer(window):
        return "freshness window is not a non-negative integer"
    # Whole seconds (CONTRACT section 7): `now.nanos` is ignored, so now - 300 and now + 300 are both fresh.
    ahead = ctx.now.seconds - created
    if ahead > window:
        return f"created {js_string(ahead)}s before now, window {js_string(window)}s"
    if -ahead > window:
        return f"created {js_string(-ahead)}s after now, window {js_string(window)}s"
    return None


_FAILURE_CODE = re.compile(r"[a-z_]{1,40}")
MAX_NAMED_URIS = 16
MAX_URI_LENGTH = 256


def _invalid_detail(payload: dict[str, Any]) -> str:
    """`signature does not verify (<code>) for @target-uri `a` or `b``: the facts are hostile, so bounded."""
    detail = "signature does not verify"
    failure = get(payload, "signature_failure")
    if isinstance(failure, str) and _FAILURE_CODE.fullmatch(failure):
        detail += f" ({failure})"
    uris = get(payload, "target_uris")
    uris = [u for u in uris if isinstance(u, str)] if isinstance(uris, list) else []
    if uris:
        named = [f"`{utf16_slice(u, MAX_URI_LENGTH - 3) + '...' if utf16_len(u) > MAX_URI_LENGTH else u}`"
                 for u in uris[:MAX_NAMED_URIS]]
        detail += f" for @target-uri {' or '.join(named)}"
    return detail


# Step 2 ---------------------------------------------------------------------------------------------------------
def check_entities(ctx: Context) -> Verdict:
    request, snapshot = ctx.request, ctx.snapshot
    principal = get(snapshot, "principal")
    if not is_record(principal):
        return fail("principal_inactive", "principal not found")
    if not same_entity(get(principal, "entity_id"), get(request, "principal_entity_id")):
        return fail("principal_inactive", "snapshot principal is not the request principal")
    ptype = get(principal, "type")
    if ptype != "person" and ptype != "organisation":
        return fail("principal_inactive", f"principal type {quote(ptype)} cannot be a principal")
    if get(principal, "state") != "active":
        return fail("principal_inactive", f"principal is {quote(get(principal, 'state'))}")

    actor = get(snapshot, "actor")
    if not is_record(actor):
        return fail("actor_inactive", "actor not found")
    if not same_entity(get(actor, "entity_id"), get(request, "actor_entity_id")):
        return fail("actor_inactive", "snapshot actor is not the request actor")
    if get(actor, "type") != "agent":
        return fail("actor_inactive", f"actor type {quote(get(actor, 'type'))} is not an agent")
    if get(actor, "state") != "active":
        return fail("actor_inactive", f"actor is {quote(get(actor, 'state'))}")
    metadata = check_agent_metadata(request, snapshot)
    if metadata is not None:
        return metadata

    instrument_id = get(request, "instrument_id")
    if instrument_id is UNDEFINED:
        if _money_moving(ctx):
            return fail("instrument_inactive", f"instrument required for {quote(get(request, 'action'))}")
        return passed("principal and actor active; no instrument named")
    instrument = get(snapshot, "instrument")
    if not is_record(instrument):
        return fail("instrument_inactive", "card token not found")
    if not same_instrument(get(instrument, "card_token_id"), instrument_id):
        return fail("instrument_inactive", "snapshot card token is not the request instrument")
    if get(instrument, "state") != "active":
        return fail("instrument_inactive", f"card token is {quote(get(instrument, 'state'))}")
    if not same_entity(get(instrument, "principal_entity_id"), get(request, "principal_entity_id")):
        return fail("instrument_not_bound", "card token belongs to another principal")
    return passed("principal, actor and card token active")


_METADATA_FIELDS = ("model", "software_version", "operator")


def check_agent_metadata(request: Any, snapshot: Any) -> Verdict | None:
    """aar-decide/1.5.0 (core's decide/checks/agent-metadata.ts): the agent metadata a request presents must be the
    attested one (`snapshot.agent_metadata`); None when not presented or equal."""
    if not (isinstance(request, dict) and "agent_metadata" in request):
        return None
    presented = request["agent_metadata"]
    if not is_record(presented) or not all(isinstance(get(presented, f), str) for f in _METADATA_FIELDS):
        return fail("agent_metadata_mismatch", "presented agent metadata is malformed")
    attested = get(snapshot, "agent_metadata")
    if not is_record(attested):
        return fail("agent_metadata_mismatch", "agent metadata presented but none attested")
    for f in _METADATA_FIELDS:
        if not isinstance(get(attested, f), str):
            return fail("agent_metadata_mismatch", "attested agent metadata is malformed")
        if presented[f] != attested[f]:
            return fail("agent_metadata_mismatch", f"agent metadata {f} {quote(presented[f])} is not the attested one")
    return None


# Step 3 ---------------------------------------------------------------------------------------------------------
def check_authority(ctx: Context) -> Verdict:
    request, grants, action = ctx.request, ctx.grants, ctx.action
    lookup = get(ctx.snapshot, "grant_lookup")
    if lookup == "authority_not_found":
        return fail("authority_not_found", "no grant for this actor and principal")
    if lookup == "capability_not_granted":
        return fail("capability_not_granted", f"no grant of {quote(get(request, 'subject'))} for this actor and principal")
    if lookup != "found":
        return fail("authority_not_found", f"grant lookup {quote(lookup)} is not known")
    if not grants:
        return fail("authority_not_found", "grant lookup found no chain")
    leaf = grants[-1]
    leaf_id = quote(get(leaf, "grant_id"))
    if not same_entity(get(leaf, "actor_entity_id"), get(request, "actor_entity_id")):
        return fail("authority_not_found", f"grant {leaf_id} is for another actor")
    if not same_entity(get(leaf, "principal_entity_id"), get(request, "principal_entity_id")):
        return fail("authority_not_found", f"grant {leaf_id} is for another principal")
    instrument_id = get(request, "instrument_id")
    if instrument_id is not UNDEFINED and not same_instrument(get(leaf, "resource_id"), instrument_id):
        return fail("authority_not_found", f"grant {leaf_id} is for another instrument")
    subject_action = action_from_subject(get(request, "subject"))
    if subject_action is None:
        return fail("capability_not_granted", f"subject {quote(get(request, 'subject'))} is not a purchase capability")
    if action != subject_action:
        return fail("capability_not_granted", f"action {quote(get(request, 'action'))} does not match subject")
    for grant in grants:
        if action not in actions_covered_by(get(grant, "capability_id")):
            return fail("capability_not_granted", f"grant {quote(get(grant, 'grant_id'))} capability does not cover {action}")
        allowed = get(get(grant, "scope"), "allowed_actions")
        if allowed is not UNDEFINED and not (isinstance(allowed, list) and includes(allowed, action)):
            return fail("capability_not_granted", f"grant {quote(get(grant, 'grant_id'))} allowed_actions excludes {action}")
    return passed(f"leaf grant {leaf_id}")


# Step 4 ---------------------------------------------------------------------------------------------------------
def check_chain(ctx: Context) -> Verdict:
    grants = ctx.grants
    for grant in grants:
        if get(grant, "state") != "active":
            mandate = get(grant, "mandate")
            if mandate is not UNDEFINED:
                return fail("mandate_revoked", f"{_mandate_of(mandate)} of grant {quote(get(grant, 'grant_id'))} is "
                            f"{quote(get(grant, 'state'))}")
            return fail("authority_revoked", f"grant {quote(get(grant, 'grant_id'))} is {quote(get(grant, 'state'))}")
    for grant in grants[:-1]:
        state = get(grant, "actor_state")
        if state is not UNDEFINED and state != "active":
            return fail("authority_revoked", f"intermediary {quote(get(grant, 'actor_entity_id'))} of grant "
                        f"{quote(get(grant, 'grant_id'))} is {quote(state)}")
    for grant in grants:
        valid_until = get(get(grant, "scope"), "valid_until")
        if valid_until is UNDEFINED:
            continue
        until = parse_instant(valid_until)
        if until is None:
            return fail("authority_expired", f"grant {quote(get(grant, 'grant_id'))} valid_until is not a timestamp")
        if ctx.now is None:
            return fail("authority_expired", "`now` is not a valid timestamp")
        if compare_instants(until, ctx.now) <= 0:
            mandate = get(grant, "mandate")
            if mandate is not UNDEFINED:
                return fail("mandate_expired", f"{_mandate_of(mandate)} of grant {quote(get(grant, 'grant_id'))} "
                            f"expired at {quote(valid_until)}")
            return fail("authority_expired", f"grant {quote(get(grant, 'grant_id'))} expired at {quote(valid_until)}")
    if ctx.now is None:
        return fail("authority_expired", "`now` is not a valid timestamp")
    for grant in grants:
        mandate = get(grant, "mandate")
        if get(mandate, "single_use") is True and get(mandate, "used") is True:
            return fail("allowance_used", f"{_mandate_of(mandate)} of grant {quote(get(grant, 'grant_id'))} was used")
    invalid = _find_delegation_problem(grants)
    if invalid:
        return fail("delegation_invalid", invalid)
    ctx.scopes = [known_scope_fields(get(grant, "scope")) for grant in grants]
    return passed("direct grant" if len(grants) == 1 else f"{len(grants)}-link chain")


def _find_delegation_problem(grants: list[dict[str, Any]]) -> str | None:
    seen: set[str] = set()
    parent_effective: dict[str, Any] | None = None
    last = len(grants) - 1
    for i, grant in enumerate(grants):
        grant_id = get(grant, "grant_id")
        gid = quote(grant_id)
        if not (isinstance(grant_id, str) and grant_id):
            return f"link {i} has no grant id"
        if grant_id in seen:
            return f"grant {gid} appears twice in the chain"
        seen.add(grant_id)
        malformed = find_malformed_scope_fields(get(grant, "scope"))
        if malformed:
            return f"grant {gid} has malformed {', '.join(malformed)}"
        if get(grant, "signature_valid") is not True:
            return f"grant {gid} signature does not verify"
        mandate = get(grant, "mandate")
        if mandate is not UNDEFINED and not _is_grant_mandate(mandate):
            return f"grant {gid} has malformed mandate"
        if i < last and get(grant, "actor_state") is UNDEFINED:
            return f"grant {gid} does not say whether its actor (an intermediary) is active"
        own = known_scope_fields(grant["scope"])
        parent_grant_id = get(grant, "parent_grant_id")
        if i == 0:
            if parent_grant_id is not None and parent_grant_id is not UNDEFINED:
                return f"chain does not start at a root grant: {gid} has a parent"
        else:
            parent = grants[i - 1]
            if not strict_eq(parent_grant_id, get(parent, "grant_id")):
                return f"grant {gid} is not a child of {quote(get(parent, 'grant_id'))}"
            if not same_entity(get(grant, "principal_entity_id"), get(parent, "principal_entity_id")):
                return f"grant {gid} is for another principal than its parent"
            if not same_instrument(get(grant, "resource_id"), get(parent, "resource_id")):
                return f"grant {gid} is for another instrument than its parent"
            parent_actions = actions_covered_by(get(parent, "capability_id"))
            if not all(a in parent_actions for a in actions_covered_by(get(grant, "capability_id"))):
                return f"grant {gid} capability is wider than its parent's"
            wider = find_wider_fields(own, parent_effective or {})
            if wider:
                return f"grant {gid} is wider than its parent: {', '.join(wider)}"
        if not strict_eq(get(grant, "depth"), i):
            return f"grant {gid} depth {quote(get(grant, 'depth'))} is not its position {i}"
        parent_effective = inherit_scope(parent_effective, own)
        if i < last and parent_effective.get("may_delegate") is not True:
            return f"grant {gid} may not be delegated"
        depth = own.get("max_delegation_depth")
        if depth is not None and last - i > depth:
            return f"grant {gid} allows {js_string(depth)} delegation level(s) below it, the chain has {last - i}"
    return None


def _mandate_of(mandate: Any) -> str:
    """`mandate `<id>``, or `mandate` alone when the binding has no readable id (aar-decide/1.4.0)."""
    mandate_id = get(mandate, "mandate_id")
    return f"mandate {quote(mandate_id)}" if isinstance(mandate_id, str) else "mandate"


def _is_grant_mandate(value: Any) -> bool:
    """`{ mandate_id, format: "ap2" | "acp", digest, single_use, used }`, each of its type."""
    if not is_record(value):
        return False
    mandate_id, digest, fmt = get(value, "mandate_id"), get(value, "digest"), get(value, "format")
    return (isinstance(mandate_id, str) and mandate_id != "" and fmt in ("ap2", "acp") and isinstance(fmt, str)
            and isinstance(digest, str) and digest != "" and isinstance(get(value, "single_use"), bool)
            and isinstance(get(value, "used"), bool))


# Step 5 ---------------------------------------------------------------------------------------------------------
def check_merchant(ctx: Context) -> Verdict:
    request, grants = ctx.request, ctx.grants
    scopes = ctx.scopes or []
    merchant_id = get(request, "merchant_id")
    if merchant_id is UNDEFINED:
        if _money_moving(ctx):
            return fail("merchant_unknown", f"merchant required for {quote(get(request, 'action'))}")
        return {"outcome": "skip", "detail": "no merchant named"}
    merchant = get(ctx.snapshot, "merchant")
    if not is_record(merchant):
        return fail("merchant_unknown", f"merchant {quote(merchant_id)} is not registered")
    if not strict_eq(get(merchant, "merchant_id"), merchant_id):
        return fail("merchant_unknown", "snapshot merchant is not the request merchant")
    if get(merchant, "state") != "active":
        return fail("merchant_unknown", f"merchant is {quote(get(merchant, 'state'))}")
    category, jurisdiction = get(merchant, "category"), get(merchant, "jurisdiction")
    if not (isinstance(category, str) and category) or not (isinstance(jurisdiction, str) and jurisdiction):
        return fail("merchant_unknown", "merchant has no category or jurisdiction")
    for i, scope in enumerate(scopes):
        allowed = scope.get("allowed_merchants")
        if allowed is not None and not includes(allowed, get(merchant, "merchant_id")):
            return fail("merchant_not_allowed",
                        f"merchant {quote(get(merchant, 'merchant_id'))} not allowed by grant {id_of(grants, i)}")
    for i, scope in enumerate(scopes):
        if category in scope.get("blocked_merchant_categories", ()):
            return fail("merchant_category_blocked", f"category {quote(category)} blocked by grant {id_of(grants, i)}")
    for i, scope in enumerate(scopes):
        allowed = scope.get("allowed_merchant_categories")
        if allowed is not None and category not in allowed:
            return fail("merchant_category_not_allowed", f"category {quote(category)} not allowed by grant {id_of(grants, i)}")
    for i, scope in enumerate(scopes):
        allowed = scope.get("allowed_jurisdictions")
        if allowed is not None and jurisdiction not in allowed:
            return fail("jurisdiction_not_allowed",
                        f"jurisdiction {quote(jurisdiction)} not allowed by grant {id_of(grants, i)}")
    return passed(f"category {quote(category)}, jurisdiction {quote(jurisdiction)}")


# Step 6 ---------------------------------------------------------------------------------------------------------
def check_amount(ctx: Context) -> Verdict:
    request, grants = ctx.request, ctx.grants
    scopes = ctx.scopes or []
    amount = get(request, "amount")
    if amount is UNDEFINED:
        if _money_moving(ctx):
            return fail("amount_above_agent_threshold", f"amount required for {quote(get(request, 'action'))}")
        return {"outcome": "skip", "detail": "no amount"}
    if not is_minor_money(amount):
        currency = get(amount, "currency")
        if not (isinstance(currency, str) and _CURRENCY.fullmatch(currency)):
            return fail("currency_mismatch", f"currency {quote(currency)} is not a currency code")
        return fail("amount_above_agent_threshold", "amount is not a safe integer of minor units")
    if amount["minor"] == 0:
        return fail("amount_above_agent_threshold", "amount must be greater than zero")
    for i, scope in enumerate(scopes):
        for key in MONEY_FIELDS:
            limit = scope.get(key)
            if limit is not None and limit["currency"] != amount["currency"]:
                return fail("currency_mismatch", f"request in {quote(amount['currency'])}, grant {id_of(grants, i)} "
                            f"{key} in {quote(limit['currency'])}")
        budget = scope.get("budget")
        if budget is not None and budget["currency"] != amount["currency"]:
            return fail("currency_mismatch", f"request in {quote(amount['currency'])}, grant {id_of(grants, i)} "
                        f"budget in {quote(budget['currency'])}")
    for i, scope in enumerate(scopes):
        limit = scope.get("max_amount_per_purchase")
        if limit is not None and amount["minor"] > limit["minor"]:
            return fail("amount_above_agent_threshold", f"over grant {id_of(grants, i)} max_amount_per_purchase")
    if ctx.action != "execute":
        return passed("within max_amount_per_purchase")
    for i, scope in enumerate(scopes):
        limit = scope.get("max_daily_amount")
        if limit is None:
            continue
        spent = get(grants[i], "spent_today") if i < len(grants) else UNDEFINED
        if not is_minor_money(spent) or (spent["currency"] != limit["currency"] and spent["minor"] != 0):
            return fail("daily_limit_exceeded", f"grant {id_of(grants, i)} spent_today is malformed")
        total = spent["minor"] + amount["minor"]
        if not is_safe_integer(total) or total > limit["minor"]:
            return fail("daily_limit_exceeded", f"over grant {id_of(grants, i)} max_daily_amount")
    # aar-decide/1.4.0: each link's own budget against that link's spend in the budget's current period
    budgeted = False
    for i, scope in enumerate(scopes):
        budget = scope.get("budget")
        if budget is None:
            continue
        budgeted = True
        spent = get(grants[i], "budget_spent") if i < len(grants) else UNDEFINED
        if not is_minor_money(spent) or (spent["currency"] != budget["currency"] and spent["minor"] != 0):
            return fail("budget_exceeded", f"grant {id_of(grants, i)} budget_spent is missing or malformed")
        total = spent["minor"] + amount["minor"]
        if not is_safe_integer(total) or total > budget["minor"]:
            return fail("budget_exceeded", f"over grant {id_of(grants, i)} budget ({budget['period']})")
    if budgeted:
        return passed("within max_amount_per_purchase, max_daily_amount and budget")
    return passed("within max_amount_per_purchase and max_daily_amount")


# Step 7 ---------------------------------------------------------------------------------------------------------
def check_risk(ctx: Context) -> Verdict:
    risk = get(ctx.snapshot, "risk")
    subjects = ("actor", "principal", "instrument")

    def state(who: str) -> str:
        value = get(risk, who)
        return value if value in ("normal", "elevated") and isinstance(value, str) else "blocked"

    blocked = [w for w in subjects if state(w) == "blocked"]
    if blocked:
        return fail("risk_state_blocked", f"risk blocked: {', '.join(blocked)}")
    elevated = [w for w in subjects if state(w) == "elevated"]
    if not elevated:
        return passed("risk normal")
    ctx.risk_elevated = True
    if get(ctx.request, "policy_decision_id") is UNDEFINED:
        return fail("risk_state_elevated", f"risk elevated: {', '.join(elevated)}")
    return passed(f"risk elevated: {', '.join(elevated)}; the named approval decides")


# Step 8 ---------------------------------------------------------------------------------------------------------
def check_approval(ctx: Context) -> Verdict:
    request = ctx.request
    pdid = get(request, "policy_decision_id")
    if pdid is UNDEFINED:
        over = _find_threshold_exceeded(ctx)
        if over:
            return fail("amount_above_approval_threshold", over)
        return passed("no approval required")
    approval = get(ctx.snapshot, "approval")
    if not is_record(approval) or not strict_eq(get(approval, "policy_decision_id"), pdid):
        return fail("approval_mismatch", f"no approval for decision {quote(pdid)}")
    aid = quote(get(approval, "approval_id"))
    differs = _find_binding_differences(request, ctx.basket.get("hash", UNDEFINED), get(approval, "bound"))
    if differs:
        return fail("approval_mismatch", f"retry differs from approval {aid}: {', '.join(differs)}")
    status = get(approval, "status")
    if status == "rejected":
        return fail("approval_rejected", f"approval {aid} rejected")
    expires_at = parse_instant(get(approval, "expires_at"))
    if status == "expired" or expires_at is None or ctx.now is None or compare_instants(expires_at, ctx.now) <= 0:
        return fail("approval_expired", f"approval {aid} expired")
    if status == "consumed":
        return fail("approval_expired", f"approval {aid} already used")
    if status == "pending":
        return fail("approval_pending", f"approval {aid} pending")
    if status != "approved":
        return fail("approval_rejected", f"approval {aid} status {quote(status)}")
    return {"outcome": "pass", "reason": "approved_by_principal", "detail": f"approval {aid}"}


def _find_threshold_exceeded(ctx: Context) -> str | None:
    amount = get(ctx.request, "amount")
    if amount is UNDEFINED or not amount or ctx.action is None or ctx.action not in MONEY_MOVING_ACTIONS:
        return None
    for i, scope in enumerate(ctx.scopes or []):
        threshold = scope.get("requires_approval_above")
        if threshold is not None and amount["minor"] > threshold["minor"]:
            return f"over grant {id_of(ctx.grants, i)} requires_approval_above"
    return None


def _same_money(a: Any, b: Any) -> bool:
    return is_record(a) and is_record(b) and strict_eq(get(a, "minor"), get(b, "minor")) and strict_eq(
        get(a, "currency"), get(b, "currency"))


def _same_optional(a: Any, b: Any, same: Callable[[Any, Any], bool]) -> bool:
    return b is UNDEFINED if a is UNDEFINED else same(a, b)


def _find_binding_differences(request: dict[str, Any], basket_hash: Any, bound: Any) -> list[str]:
    if not is_record(bound):
        return ["bound"]
    differs: list[str] = []
    if not same_entity(get(request, "actor_entity_id"), get(bound, "actor_entity_id")):
        differs.append("actor_entity_id")
    if not same_entity(get(request, "principal_entity_id"), get(bound, "principal_entity_id")):
        differs.append("principal_entity_id")
    if not strict_eq(get(request, "subject"), get(bound, "subject")):
        differs.append("subject")
    if not strict_eq(get(request, "merchant_id"), get(bound, "merchant_id")):
        differs.append("merchant_id")
    if not _same_optional(get(request, "amount"), get(bound, "amount"), _same_money):
        differs.append("amount")
    if not _same_optional(get(request, "instrument_id"), get(bound, "instrument_id"), same_instrument):
        differs.append("instrument_id")
    if not strict_eq(basket_hash, get(bound, "basket_hash")):
        differs.append("basket_hash")
    return differs


CHECKS: dict[str, Callable[[Context], Verdict]] = {
    "payload": check_payload,
    "entities": check_entities,
    "authority": check_authority,
    "chain": check_chain,
    "merchant": check_merchant,
    "amount": check_amount,
    "risk": check_risk,
    "approval": check_approval,
}
