"""Offline verifiers of the v1.1 preview documents (issue 30, CONTRACT section 22): payload artefacts, memory records
with their tombstones and tombstone chain, and compliance reports, each with the same named checks and failure codes
as the TypeScript SDK."""
from ._frame import PreviewCheck, PreviewVerification, verify_preview_document
from .artefact import PAYLOAD_ARTEFACT_SCHEMA, verify_payload_artefact
from .memory import (
    MEMORY_RECORD_SCHEMA,
    MemoryChainVerification,
    memory_content_digest,
    memory_document_digest,
    verify_memory_chain,
    verify_memory_record,
)
from .report import COMPLIANCE_REPORT_SCHEMA, verify_compliance_report

__all__ = [
    "PreviewCheck", "PreviewVerification", "verify_preview_document", "PAYLOAD_ARTEFACT_SCHEMA",
    "verify_payload_artefact", "MEMORY_RECORD_SCHEMA", "MemoryChainVerification", "memory_content_digest",
    "memory_document_digest", "verify_memory_chain", "verify_memory_record", "COMPLIANCE_REPORT_SCHEMA",
    "verify_compliance_report",
]
