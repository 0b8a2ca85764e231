"""Offline verification of authority proof bundles (`ns.authority_proof_bundle.v1`, CONTRACT section 12), a port of
core's bundles/ with the same ten checks in the same order: `verify_bundle(bundle, jwks, origin=None)`."""
from .checks import BUNDLE_CHECKS, BUNDLE_PARTS
from .references import part_digest
from .verify import BundleVerification, verify_bundle

__all__ = ["BUNDLE_CHECKS", "BUNDLE_PARTS", "BundleVerification", "part_digest", "verify_bundle"]
