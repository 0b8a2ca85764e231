"""A compliance report (`ns.compliance_report.v1`, docs/reports.md "Verification"), offline: the same checks and
failure codes as the TypeScript SDK's verifyComplianceReport (`shape`, `period`, `decisions`, `denials`,
`approvals`, `revocations`, `coverage`): every total equals the sum of its parts, `period.start < period.end`."""
from __future__ import annotations

import re
from typing import Any

from ..jwks import TrustedKeys
from ._frame import (
    CheckFailed,
    PreviewVerification,
    instant,
    is_count,
    is_ns_id,
    is_text,
    is_timestamp,
    require,
    verify_preview_document,
)

COMPLIANCE_REPORT_SCHEMA = "ns.compliance_report.v1"

_DECISIONS = ("allow_with_constraints", "require_approval", "deny")
_OUTCOMES = ("none", "reserved", "executed", "failed", "refunded")
_APPROVAL_STATUSES = ("pending", "approved", "rejected", "expired", "consumed")
_CONTROL_STATUSES = ("satisfied", "partially_satisfied", "not_applicable", "gap")
_CURRENCY = re.compile(r"[A-Z]{3}", re.ASCII)


def _member(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else None


def _sum_of(counts: Any, names: tuple[str, ...]) -> int | None:
    total = 0
    for name in names:
        value = _member(counts, name)
        if not is_count(value):
            return None
        total += int(value)
    return total if total <= 2**53 - 1 else None


def _shape(d: dict) -> None:
    require([
        ("/report_id", is_ns_id(d.get("report_id"), "compliance_report")),
        ("/issuer", is_text(d.get("issuer"))),
        ("/generated_at", is_timestamp(d.get("generated_at"))),
        ("/schedule_id", "schedule_id" in d and (d["schedule_id"] is None or is_ns_id(d["schedule_id"], "report_schedule"))),
        ("/period", isinstance(d.get("period"), dict)),
        ("/decisions", isinstance(d.get("decisions"), dict)),
        ("/denials", isinstance(d.get("denials"), dict)),
        ("/approvals", isinstance(d.get("approvals"), dict)),
        ("/revocations", isinstance(d.get("revocations"), dict)),
        ("/coverage", isinstance(d.get("coverage"), list)),
    ])


def _period(d: dict) -> None:
    period = d.get("period")
    start, end = _member(period, "start"), _member(period, "end")
    if not is_timestamp(start):
        raise CheckFailed("malformed_document", "/period/start")
    if not is_timestamp(end):
        raise CheckFailed("malformed_document", "/period/end")
    if not instant(start) < instant(end):
        raise CheckFailed("period_invalid", "/period/end")
    if is_timestamp(d.get("generated_at")) and instant(d["generated_at"]) < instant(end):
        raise CheckFailed("period_invalid", "/generated_at")
    every = period.get("every", "absent")
    scheduled = d.get("schedule_id") is not None
    if scheduled != is_text(every) or (not scheduled and every is not None):
        raise CheckFailed("period_invalid", "/period/every")


def _amounts(entries: Any, pointer: str) -> dict[str, tuple[int, int]]:
    if not isinstance(entries, list):
        raise CheckFailed("malformed_document", pointer)
    out: dict[str, tuple[int, int]] = {}
    last = ""
    for i, entry in enumerate(entries):
        currency, amount, count = _member(entry, "currency"), _member(entry, "amount_minor"), _member(entry, "count")
        if not isinstance(currency, str) or not _CURRENCY.fullmatch(currency):
            raise CheckFailed("malformed_document", f"{pointer}/{i}")
        if not is_count(amount) or not is_count(count):
            raise CheckFailed("malformed_document", f"{pointer}/{i}")
        if currency <= last:
            raise CheckFailed("totals_mismatch", f"{pointer}/{i}/currency")
        last = currency
        out[currency] = (int(amount), int(count))
    return out


def _decisions(d: dict) -> None:
    section = d.get("decisions")
    total = _member(section, "total")
    if not is_count(total):
        raise CheckFailed("malformed_document", "/decisions/total")
    by_decision = _sum_of(_member(section, "by_decision"), _DECISIONS)
    by_outcome = _sum_of(_member(section, "by_outcome"), _OUTCOMES)
    if by_decision is None:
        raise CheckFailed("malformed_document", "/decisions/by_decision")
    if by_outcome is None:
        raise CheckFailed("malformed_document", "/decisions/by_outcome")
    if by_decision != total:
        raise CheckFailed("totals_mismatch", "/decisions/by_decision")
    if by_outcome != total:
        raise CheckFailed("totals_mismatch", "/decisions/by_outcome")
    allowed = _amounts(_member(section, "allowed_amounts"), "/decisions/allowed_amounts")
    executed = _amounts(_member(section, "executed_amounts"), "/decisions/executed_amounts")
    if sum(c for _, c in allowed.values()) > section["by_decision"]["allow_with_constraints"]:
        raise CheckFailed("totals_mismatch", "/decisions/allowed_amounts")
    if sum(c for _, c in executed.values()) > section["by_outcome"]["executed"]:
        raise CheckFailed("totals_mismatch", "/decisions/executed_amounts")
    for currency, (amount, count) in executed.items():
        of = allowed.get(currency)
        if of is None or count > of[1] or amount > of[0]:
            raise CheckFailed("totals_mismatch", f"/decisions/executed_amounts ({currency})")


def _denials(d: dict) -> None:
    denials = d.get("denials")
    total, reasons = _member(denials, "total"), _member(denials, "by_reason")
    if not is_count(total):
        raise CheckFailed("malformed_document", "/denials/total")
    if not isinstance(reasons, list):
        raise CheckFailed("malformed_document", "/denials/by_reason")
    deny = _member(_member(d.get("decisions"), "by_decision"), "deny")
    if not is_count(deny) or total != deny:
        raise CheckFailed("totals_mismatch", "/denials/total")
    seen: set[str] = set()
    counted = 0
    previous: tuple[str, int] | None = None
    for i, entry in enumerate(reasons):
        reason, count = _member(entry, "reason"), _member(entry, "count")
        if not is_text(reason) or not is_count(count):
            raise CheckFailed("malformed_document", f"/denials/by_reason/{i}")
        if reason in seen:
            raise CheckFailed("totals_mismatch", f"/denials/by_reason/{i}/reason")
        # most frequent first, then by reason (UTF-16 order, as the service sorts; the same for ASCII reasons)
        if previous and (count > previous[1] or (count == previous[1] and reason.encode("utf-16-be") < previous[0].encode("utf-16-be"))):
            raise CheckFailed("totals_mismatch", f"/denials/by_reason/{i}")
        seen.add(reason)
        counted += int(count)
        previous = (reason, count)
    if counted != total:
        raise CheckFailed("totals_mismatch", "/denials/by_reason")


def _approvals(d: dict) -> None:
    approvals = d.get("approvals")
    total = _member(approvals, "total")
    counted = _sum_of(_member(approvals, "by_status"), _APPROVAL_STATUSES)
    if not is_count(total):
        raise CheckFailed("malformed_document", "/approvals/total")
    if counted is None:
        raise CheckFailed("malformed_document", "/approvals/by_status")
    if counted != total:
        raise CheckFailed("totals_mismatch", "/approvals/by_status")


def _revocations(d: dict) -> None:
    grants = _member(d.get("revocations"), "grants_revoked")
    operations = _member(d.get("revocations"), "revoke_operations")
    if not is_count(grants):
        raise CheckFailed("malformed_document", "/revocations/grants_revoked")
    if not is_count(operations):
        raise CheckFailed("malformed_document", "/revocations/revoke_operations")
    if operations > grants:
        raise CheckFailed("totals_mismatch", "/revocations/revoke_operations")


def _framework(entry: Any, at: str) -> None:
    packs = _member(entry, "evidence_packs")
    in_period, projected = _member(packs, "in_period"), _member(packs, "projected")
    if not is_count(in_period) or not is_count(projected):
        raise CheckFailed("malformed_document", f"{at}/evidence_packs")
    if projected > in_period:
        raise CheckFailed("totals_mismatch", f"{at}/evidence_packs/projected")
    controls = _member(entry, "controls")
    if not isinstance(controls, list):
        raise CheckFailed("malformed_document", f"{at}/controls")
    counted = {status: 0 for status in _CONTROL_STATUSES}
    for i, control in enumerate(controls):
        status = _member(control, "status")
        applicable = _member(_member(control, "packs"), "applicable")
        satisfying = _member(_member(control, "packs"), "satisfying")
        if not isinstance(status, str) or status not in counted:
            raise CheckFailed("malformed_document", f"{at}/controls/{i}/status")
        if not is_count(applicable) or not is_count(satisfying):
            raise CheckFailed("malformed_document", f"{at}/controls/{i}/packs")
        if satisfying > applicable or applicable > projected:
            raise CheckFailed("totals_mismatch", f"{at}/controls/{i}/packs")
        if (status == "satisfied") == isinstance(_member(control, "reason"), str):
            raise CheckFailed("totals_mismatch", f"{at}/controls/{i}/reason")
        counted[status] += 1
    summary = _member(entry, "summary")
    for status in _CONTROL_STATUSES:
        stated = _member(summary, status)
        if not is_count(stated):
            raise CheckFailed("malformed_document", f"{at}/summary/{status}")
        if stated != counted[status]:
            raise CheckFailed("totals_mismatch", f"{at}/summary/{status}")


def _coverage(d: dict) -> None:
    entries = d.get("coverage")
    if not isinstance(entries, list):
        raise CheckFailed("malformed_document", "/coverage")
    frameworks: set[str] = set()
    for i, entry in enumerate(entries):
        framework = _member(entry, "framework")
        if not is_text(framework):
            raise CheckFailed("malformed_document", f"/coverage/{i}")
        if framework in frameworks:
            raise CheckFailed("totals_mismatch", f"/coverage/{i}/framework")
        frameworks.add(framework)
        _framework(entry, f"/coverage/{i}")


def verify_compliance_report(report: Any, trusted: TrustedKeys) -> PreviewVerification:
    return verify_preview_document(report, trusted, COMPLIANCE_REPORT_SCHEMA, [
        ("shape", _shape), ("period", _period), ("decisions", _decisions), ("denials", _denials),
        ("approvals", _approvals), ("revocations", _revocations), ("coverage", _coverage),
    ])
