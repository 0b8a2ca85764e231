"""The disclosures of one AP2 hop (SD-JWT, RFC 9901 section 7.1 strictness, as core's ap2-disclosures.ts): each is
`[salt, value]` (an array element, named by `{"...": digest}`) or `[salt, name, value]` (an object member, named from
`_sd`). INVARIANT after a hop resolves: every disclosure is referenced exactly once, from a place of its kind, at most
MAX_DEPTH deep. Attacker assumption: every byte is chosen by the attacker (a digest cycle would need a SHA-256
pre-image; each disclosure is still taken at most once)."""
from __future__ import annotations

import hashlib
from typing import Any

from .._b64 import encode_b64url
from ._common import _ELLIPSIS, MAX_DEPTH, _b64json, _Refused

class _Disclosures:
    """The hop's disclosures by digest; each must be used exactly once."""

    def __init__(self, texts: list[str], base: str) -> None:
        self.by_digest: dict[str, tuple[int, list[Any]]] = {}
        self.used: set[str] = set()
        for i, text in enumerate(texts):
            path = f"{base}/disclosures/{i}"
            value = _b64json(text, path, "the disclosure", "disclosure_digest_mismatch")
            if not isinstance(value, list) or len(value) not in (2, 3) or not isinstance(value[0], str):
                raise _Refused(path, "disclosure_digest_mismatch", "a disclosure is [salt, value] or [salt, name, value]")
            if len(value) == 3 and (not isinstance(value[1], str) or value[1] in ("_sd", _ELLIPSIS, "_sd_alg")):
                raise _Refused(path, "disclosure_digest_mismatch", "a disclosure's claim name must be a string other than _sd, _sd_alg and ...")
            digest = encode_b64url(hashlib.sha256(text.encode("ascii")).digest())
            if digest in self.by_digest:
                raise _Refused(path, "disclosure_digest_mismatch", "the same disclosure appears twice")
            self.by_digest[digest] = (i, value)

    def take(self, digest: Any, path: str, array_element: bool) -> Any:
        """The disclosure a digest names, or None when the presentation does not disclose it."""
        if not isinstance(digest, str):
            raise _Refused(path, "disclosure_digest_mismatch", "a digest must be a string")
        if digest in self.used:
            raise _Refused(path, "disclosure_digest_mismatch", "a digest is referenced twice")
        found = self.by_digest.get(digest)
        if found is None:
            return None
        self.used.add(digest)
        if (len(found[1]) == 2) != array_element:
            raise _Refused(path, "disclosure_digest_mismatch", "an array element digest names an object member disclosure, or the reverse")
        return found[1]

    def unused(self) -> list[int]:
        return sorted(i for d, (i, _v) in self.by_digest.items() if d not in self.used)


def _resolve(value: Any, disclosures: _Disclosures, path: str, depth: int) -> Any:
    """The value with every disclosed digest replaced by what it discloses (undisclosed ones dropped)."""
    if depth > MAX_DEPTH:
        raise _Refused(path, "schema_invalid", f"nested deeper than {MAX_DEPTH}")
    if isinstance(value, list):
        out = []
        for i, item in enumerate(value):
            if isinstance(item, dict) and _ELLIPSIS in item:
                if len(item) != 1:
                    raise _Refused(f"{path}/{i}", "disclosure_digest_mismatch", "an array element digest object has one member")
                disclosed = disclosures.take(item[_ELLIPSIS], f"{path}/{i}", array_element=True)
                if disclosed is not None:
                    out.append(_resolve(disclosed[1], disclosures, f"{path}/{i}", depth + 1))
            else:
                out.append(_resolve(item, disclosures, f"{path}/{i}", depth + 1))
        return out
    if isinstance(value, dict):
        out_obj: dict[str, Any] = {}
        if _ELLIPSIS in value:
            raise _Refused(f"{path}/...", "disclosure_digest_mismatch", "the member ... is allowed only as an array element digest")
        for name, member in value.items():
            if name in ("_sd", "_sd_alg"):
                continue
            out_obj[name] = _resolve(member, disclosures, f"{path}/{_pointer(name)}", depth + 1)
        sd = value.get("_sd")
        if sd is not None:
            if not isinstance(sd, list):
                raise _Refused(f"{path}/_sd", "disclosure_digest_mismatch", "_sd must be an array of digests")
            for i, digest in enumerate(sd):
                disclosed = disclosures.take(digest, f"{path}/_sd/{i}", array_element=False)
                if disclosed is None:
                    continue
                name = disclosed[1]
                if name in out_obj:
                    raise _Refused(f"{path}/_sd/{i}", "disclosure_digest_mismatch", f"the claim {name} is disclosed and also plain")
                out_obj[name] = _resolve(disclosed[2], disclosures, f"{path}/{_pointer(name)}", depth + 1)
        return out_obj
    return value


def _pointer(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")
