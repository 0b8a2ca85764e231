"""Names and references of the policy documents (CONTRACT section 19), as core's rules/names.ts reads them:
`ns:rule_pack:<name>`, `ns:dictionary:<name>`, references `<id>@<semver>`."""
from __future__ import annotations

import re
from typing import Any

POLICY_NAME = re.compile(r"[a-z][a-z0-9_-]{1,62}", re.ASCII)
SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)"
    r"(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?", re.ASCII)
RULE_PACK_PREFIX = "ns:rule_pack:"
DICTIONARY_PREFIX = "ns:dictionary:"


def name_of_id(value: Any, prefix: str) -> str | None:
    """The `<name>` of `<prefix><name>`, or None."""
    if not isinstance(value, str) or not value.startswith(prefix):
        return None
    name = value[len(prefix):]
    return name if POLICY_NAME.fullmatch(name) else None


def parse_reference(ref: Any, prefix: str) -> dict[str, str] | None:
    """`<prefix><name>@<semver>` as `{id, name, version}`, or None."""
    if not isinstance(ref, str) or "@" not in ref:
        return None
    at = ref.rindex("@")
    name = name_of_id(ref[:at], prefix)
    version = ref[at + 1:]
    return {"id": ref[:at], "name": name, "version": version} if name and SEMVER.fullmatch(version) else None
