"""Python SDK of the Agent Authority Runtime (CONTRACT section 18): an HTTP client for every route, the RFC 9421
request signer, and offline verifiers (signed documents, decision maps, evidence packs with replay through a port of
`decide`, delegation chains, checkpoints and inclusion proofs, proof bundles, the three webhook profiles, AP2 mandate presentations and ACP allowance digests)."""
from .bundle import BUNDLE_CHECKS, BUNDLE_PARTS, BundleVerification, part_digest, verify_bundle
from .client import AarClient, Page
from .decide import decide
from .decision_map import verify_decision_map
from .delegation import verify_delegation_chain
from .errors import AarApiError, AarNetworkError
from .evidence import replay_decision, verify_evidence_pack
from .http_signatures import RequestSigner, content_digest, private_key_from_jwk, public_jwk, signature_base, sign_request
from .jcs import canonical_bytes, canonical_json, parse_json
from .jwks import JwksSource, jwk_thumbprint, resolve_jwks_url
from .mandates import allowance_digest, check_mandates, mandate_digest, verify_ap2_presentation
from .merkle import verify_checkpoint, verify_checkpoint_inclusion, verify_inclusion_proof_json
from .preview import (
    verify_compliance_report,
    verify_memory_chain,
    verify_memory_record,
    verify_payload_artefact,
)
from .signed_document import sign_document, verify_document
from .webhooks import verify_webhook_delivery

__version__ = "1.0.0"
__all__ = [
    "AarClient", "Page", "AarApiError", "AarNetworkError", "RequestSigner", "sign_request", "signature_base",
    "private_key_from_jwk", "public_jwk",
    "content_digest", "JwksSource", "jwk_thumbprint", "resolve_jwks_url", "canonical_json", "canonical_bytes", "parse_json",
    "verify_document", "sign_document", "verify_decision_map", "verify_evidence_pack", "replay_decision", "decide",
    "verify_delegation_chain", "verify_checkpoint", "verify_checkpoint_inclusion", "verify_inclusion_proof_json",
    "verify_webhook_delivery", "verify_bundle", "BundleVerification", "BUNDLE_CHECKS", "BUNDLE_PARTS", "part_digest",
    "verify_ap2_presentation", "mandate_digest", "allowance_digest", "check_mandates",
    "verify_payload_artefact", "verify_memory_record", "verify_memory_chain", "verify_compliance_report",
]
