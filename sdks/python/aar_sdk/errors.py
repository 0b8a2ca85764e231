"""Typed errors of the client (CONTRACT section 7): every refusal is RFC 9457 problem+json with a stable `code`."""
from __future__ import annotations

from typing import Any


class AarError(Exception):
    """Base class of every error this SDK raises on purpose."""


class AarApiError(AarError):
    """The service answered with a problem document (or an unexpected status)."""

    def __init__(self, status: int, code: str, title: str, detail: str | None = None,
                 errors: list[dict[str, Any]] | None = None, request_id: str | None = None,
                 retry_after: float | None = None, problem: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code}: {detail or title}")
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.errors = errors or []
        self.request_id = request_id
        self.retry_after = retry_after
        self.problem = problem or {}


class AarNetworkError(AarError):
    """The request did not get an answer (connection refused, reset, timeout), after every retry."""
