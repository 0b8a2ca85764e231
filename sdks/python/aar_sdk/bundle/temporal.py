"""temporal_validity (core's temporal-check.ts): at the instant of the decision (the pack's `now`) every link of the
chain was issued, unexpired and not yet revoked (a revocation after the decision does not undo it; a state without its
moment cannot be placed, so it fails), and every signature of the bundle was made while its key was valid: each key's
JWKS window (`valid_from`, `valid_until`) holds the time its document states."""
from __future__ import annotations

from typing import Any

from ..decide.instant import compare_instants, parse_instant
from ..jwks import TrustedKeys, look_up_key
from .checks import MISSING, Outcome, Passed, own
from .context import BundleContext
from .delegation_checks import is_retired_key_problem


def check_temporal_validity(ctx: BundleContext, origin: str | None) -> Outcome:
    decided_at = parse_instant(ctx.decided_at)
    if not decided_at:
        return "the evidence pack gives no decision instant"
    failures: list[str] = []
    chain_doc = ctx.part("delegation_chain")
    if ctx.chain is not None:
        for p in ctx.chain.problems:
            if p["code"] == "expired":
                failures.append(f"link {p['index']} had expired ({p['field']})")
            if is_retired_key_problem(p):
                failures.append(f"link {p['index']} was signed by a retired key")
        links = own(chain_doc, "links")
        for report in ctx.chain.links:
            index = report["index"]
            link = links[index] if isinstance(links, list) and index < len(links) else MISSING
            issued = parse_instant(own(link, "issued_at"))
            if not issued or compare_instants(issued, decided_at) > 0:
                failures.append(f"link {index} was issued after the decision")
            if report.get("state") is None or report.get("state") == "active":
                continue
            revoked = parse_instant(report.get("revoked_at"))
            if not revoked:
                failures.append(f"link {index} is `{report['state']}` since an unknown time")
            elif compare_instants(revoked, decided_at) <= 0:
                failures.append(f"link {index} was revoked before the decision")
    signed = (("bundle", ctx.bundle, "created_at"), ("decision map", ctx.part("decision_map"), "issued_at"),
              ("evidence pack", ctx.pack, "issued_at"), ("checkpoint", ctx.part("checkpoint"), "timestamp"),
              ("delegation chain", chain_doc, "as_of"))
    for what, doc, time_member in signed:
        if not isinstance(doc, dict):
            continue  # absent parts are other checks' failures
        why = _key_window_problem(ctx.jwks, own(own(doc, "signature"), "key_id"), own(doc, time_member))
        if why:
            failures.append(f"the {what} {why}")
    if failures:
        return "; ".join(failures[:5])
    return Passed(f"the chain and every signing key were valid at `{ctx.decided_at}`")


def _key_window_problem(jwks: TrustedKeys, key_id: Any, time: Any) -> str | None:
    """Why `key_id` was not valid at `time` by its JWKS window; None when it was, or when the key is unknown."""
    if not isinstance(key_id, str):
        return None
    try:
        key = look_up_key(jwks, key_id)
    except Exception:  # noqa: BLE001 - an unknown key fails its signature check, not this one
        return None
    if not isinstance(key, dict):
        return None
    at = parse_instant(time)
    if not at:
        return "states no time its key can be judged at"
    if "valid_from" in key:
        start = parse_instant(key["valid_from"])
        if not start or compare_instants(at, start) < 0:
            return f"was signed before key `{key_id}` was valid"
    if key.get("valid_until") is not None:
        until = parse_instant(key["valid_until"])
        if not until or compare_instants(at, until) > 0:
            return f"was signed after key `{key_id}` was retired"
    return None
