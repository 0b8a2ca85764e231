"""RFC 9162 Merkle proofs and checkpoints (CONTRACT section 8), written by hand after core's merkle/ (itself modelled
on transparency-dev/merkle): leaf hash SHA-256(0x00 || entry), node hash SHA-256(0x01 || left || right); hashes travel
as canonical padded base64; a checkpoint is a signed document `{ origin, size, root_hash, timestamp }`.
Attacker assumption: index, size, hashes and proofs come from the network; nothing raises, every refusal is a code
(`index_out_of_range`, `wrong_proof_size`, `root_mismatch`, `malformed_proof`, ...; the codes of core's merkle/).
"""
from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Any

from ._b64 import try_decode_b64
from .signed_document import verify_document
from .jwks import TrustedKeys

HASH_SIZE = 32
MAX_PROOF_HASHES = 64
MAX_SAFE_INTEGER = 2**53 - 1
_ORIGIN = re.compile(r"[\x21-\x7e]{1,255}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z", re.ASCII)


@dataclass
class MerkleResult:
    valid: bool
    failure: str | None = None

    def __bool__(self) -> bool:
        return self.valid


def leaf_hash(entry: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def is_tree_size(value: Any) -> bool:
    return type(value) is int and 0 <= value <= MAX_SAFE_INTEGER


def _is_hash(value: Any) -> bool:
    return isinstance(value, (bytes, bytearray)) and len(value) == HASH_SIZE


def _proof_length(index: int, size: int) -> int:
    fn, sn, count = index, size - 1, 0
    while sn != 0:
        if fn % 2 == 0 and fn == sn:
            while fn % 2 == 0 and fn != 0:
                fn //= 2
                sn //= 2
        fn //= 2
        sn //= 2
        count += 1
    return count


def root_from_inclusion_proof(leaf: bytes, index: int, size: int, proof: list[bytes]) -> tuple[bytes | None, str | None]:
    if not is_tree_size(size):
        return None, "invalid_size"
    if not is_tree_size(index) or index >= size:
        return None, "index_out_of_range"
    if not _is_hash(leaf):
        return None, "invalid_leaf_hash"
    if not isinstance(proof, list) or not all(_is_hash(p) for p in proof):
        return None, "malformed_proof"
    if len(proof) != _proof_length(index, size):
        return None, "wrong_proof_size"
    fn, sn, r = index, size - 1, bytes(leaf)
    for p in proof:
        if sn == 0:
            return None, "wrong_proof_size"
        if fn % 2 == 1 or fn == sn:
            r = node_hash(p, r)
            if fn % 2 == 0:
                while fn % 2 == 0 and fn != 0:
                    fn //= 2
                    sn //= 2
        else:
            r = node_hash(r, p)
        fn //= 2
        sn //= 2
    if sn != 0:
        return None, "wrong_proof_size"
    return r, None


def verify_inclusion(leaf: bytes, index: int, size: int, proof: list[bytes], root: bytes) -> MerkleResult:
    computed, failure = root_from_inclusion_proof(leaf, index, size, proof)
    if computed is None:
        return MerkleResult(False, failure)
    if not _is_hash(root) or not hmac.compare_digest(computed, bytes(root)):
        return MerkleResult(False, "root_mismatch")
    return MerkleResult(True)


def decode_hash(text: Any) -> bytes | None:
    if not isinstance(text, str) or len(text) > 64:
        return None
    data = try_decode_b64(text)
    return data if data is not None and len(data) == HASH_SIZE else None


class MalformedDocument(ValueError):
    pass


def parse_inclusion_proof(value: Any) -> dict[str, Any]:
    """Strict shape of `{ leaf_index, tree_size, leaf_hash, hashes }`; raises MalformedDocument naming the field."""
    if not isinstance(value, dict):
        raise MalformedDocument("proof: must be an object")
    for key in value:
        if key not in ("leaf_index", "tree_size", "leaf_hash", "hashes"):
            raise MalformedDocument(f"/{key}: is not allowed")
    for key in ("leaf_index", "tree_size"):
        if not is_tree_size(value.get(key)):
            raise MalformedDocument(f"/{key}: must be a non-negative safe integer")
    if decode_hash(value.get("leaf_hash")) is None:
        raise MalformedDocument("/leaf_hash: must be a base64 32-byte hash")
    hashes = value.get("hashes")
    if not isinstance(hashes, list) or len(hashes) > MAX_PROOF_HASHES:
        raise MalformedDocument("/hashes: must be an array of at most 64 hashes")
    for i, item in enumerate(hashes):
        if decode_hash(item) is None:
            raise MalformedDocument(f"/hashes/{i}: must be a base64 32-byte hash")
    return value


def verify_inclusion_proof_json(proof: Any, root_base64: Any) -> MerkleResult:
    try:
        parsed = parse_inclusion_proof(proof)
    except MalformedDocument:
        return MerkleResult(False, "malformed_proof")
    root = decode_hash(root_base64)
    if root is None:
        return MerkleResult(False, "malformed_root")
    return verify_inclusion(
        decode_hash(parsed["leaf_hash"]),  # type: ignore[arg-type]
        parsed["leaf_index"],
        parsed["tree_size"],
        [decode_hash(h) for h in parsed["hashes"]],  # type: ignore[misc]
        root,
    )


def parse_checkpoint(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MalformedDocument("checkpoint: must be an object")
    for key in value:
        if key not in ("origin", "size", "root_hash", "timestamp", "signature"):
            raise MalformedDocument(f"/{key}: is not allowed")
    origin = value.get("origin")
    if not isinstance(origin, str) or not _ORIGIN.fullmatch(origin):
        raise MalformedDocument("/origin: must be 1-255 printable ASCII characters without spaces")
    if not is_tree_size(value.get("size")):
        raise MalformedDocument("/size: must be a non-negative safe integer")
    if decode_hash(value.get("root_hash")) is None:
        raise MalformedDocument("/root_hash: must be a base64 32-byte hash")
    ts = value.get("timestamp")
    if not isinstance(ts, str) or not _TIMESTAMP.fullmatch(ts):
        raise MalformedDocument("/timestamp: must be an RFC 3339 UTC timestamp")
    return value


def verify_checkpoint(checkpoint: Any, trusted: TrustedKeys, *, origin: str | None = None) -> MerkleResult:
    """Shape, origin (when given: a checkpoint of another log proves nothing here) and the service signature."""
    try:
        parsed = parse_checkpoint(checkpoint)
    except MalformedDocument:
        return MerkleResult(False, "malformed_checkpoint")
    if origin is not None and parsed["origin"] != origin:
        return MerkleResult(False, "origin_mismatch")
    signature = verify_document(checkpoint, trusted)
    return MerkleResult(True) if signature.valid else MerkleResult(False, signature.failure)


def verify_checkpoint_inclusion(entry: bytes, proof: Any, checkpoint: Any, trusted: TrustedKeys, *,
                                origin: str | None = None) -> MerkleResult:
    """A log entry (its exact bytes) is leaf `proof.leaf_index` of the tree the signed checkpoint commits to."""
    cp = verify_checkpoint(checkpoint, trusted, origin=origin)
    if not cp.valid:
        return cp
    try:
        parsed = parse_inclusion_proof(proof)
    except MalformedDocument:
        return MerkleResult(False, "malformed_proof")
    if parsed["tree_size"] != checkpoint["size"]:
        return MerkleResult(False, "tree_size_mismatch")
    if decode_hash(parsed["leaf_hash"]) != leaf_hash(entry):
        return MerkleResult(False, "leaf_hash_mismatch")
    return verify_inclusion_proof_json(proof, checkpoint["root_hash"])
