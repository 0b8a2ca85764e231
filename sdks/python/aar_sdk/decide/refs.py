"""Identifiers and capabilities as decide compares them (core's ids/identifiers.ts, decide/same-ref.ts and
decide/action-from-subject.ts): `ns:human:<id>` is `ns:entity:person:<id>`, `ns:agent:<id>` is `ns:entity:agent:<id>`,
`ns:credential:card-token:<id>` is `ns:card_token:<id>`; anything that does not parse compares as an exact string
and never equals a non-string."""
from __future__ import annotations

import re
from typing import Any

LOCAL_ID = re.compile(r"[A-Za-z0-9._-]{1,128}", re.ASCII)
ENTITY_TYPES = ("person", "organisation", "agent")
CARD_PURCHASE_CAPABILITY = "ns:capability:payment_action:card_purchase"
SUB_CAPABILITY_PREFIX = "ns:capability:purchase:"
PURCHASE_ACTIONS = ("search", "compare", "prepare", "request_approval", "execute", "refund_request", "dispute_prepare")
MONEY_MOVING_ACTIONS = ("execute", "refund_request")


def _is_local(value: Any) -> bool:
    return isinstance(value, str) and LOCAL_ID.fullmatch(value) is not None


def parse_entity_id(value: Any) -> tuple[str, str] | None:
    """(type, local) of an entity id or alias; None when it is not one."""
    if not isinstance(value, str):
        return None
    parts = value.split(":")
    kind = local = None
    if len(parts) == 4 and parts[0] == "ns" and parts[1] == "entity":
        kind, local = parts[2], parts[3]
    elif len(parts) == 3 and parts[0] == "ns" and parts[1] in ("human", "agent"):
        kind, local = ("person" if parts[1] == "human" else "agent"), parts[2]
    if kind not in ENTITY_TYPES or not _is_local(local):
        return None
    return kind, local  # type: ignore[return-value]


def canonical_entity_id(value: Any) -> str | None:
    parsed = parse_entity_id(value)
    return None if parsed is None else f"ns:entity:{parsed[0]}:{parsed[1]}"


def parse_card_token_ref(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    for prefix in ("ns:card_token:", "ns:credential:card-token:"):
        if value.startswith(prefix):
            local = value[len(prefix):]
            return local if _is_local(local) else None
    return None


def same_entity(a: Any, b: Any) -> bool:
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    return (canonical_entity_id(a) or a) == (canonical_entity_id(b) or b)


def same_instrument(a: Any, b: Any) -> bool:
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    la, lb = parse_card_token_ref(a), parse_card_token_ref(b)
    return la is not None and la == lb


def is_purchase_action(value: Any) -> bool:
    return isinstance(value, str) and value in PURCHASE_ACTIONS


def action_from_subject(subject: Any) -> str | None:
    if subject == CARD_PURCHASE_CAPABILITY and isinstance(subject, str):
        return "execute"
    if not isinstance(subject, str) or not subject.startswith(SUB_CAPABILITY_PREFIX):
        return None
    action = subject[len(SUB_CAPABILITY_PREFIX):]
    return action if is_purchase_action(action) else None


def actions_covered_by(capability_id: Any) -> tuple[str, ...]:
    if isinstance(capability_id, str) and capability_id == CARD_PURCHASE_CAPABILITY:
        return PURCHASE_ACTIONS
    if not isinstance(capability_id, str) or not capability_id.startswith(SUB_CAPABILITY_PREFIX):
        return ()
    action = capability_id[len(SUB_CAPABILITY_PREFIX):]
    return (action,) if is_purchase_action(action) else ()
