"""The HTTP client (CONTRACT sections 7 and 18), on urllib only.

- `AarClient(base_url, token)`: one method per route; JSON in, parsed JSON out; a problem document raises AarApiError
  (`status`, `code`, `errors`, `request_id`).
- Retries with exponential backoff and full jitter on 429 (honouring `Retry-After`), 503 and network errors.
  Every POST carries an `Idempotency-Key` drawn once per logical call and reused across its retries, so a retried
  purchase is answered with the first response, never decided twice.
- `iter_*` helpers walk every page (`next_cursor`; `after` for the events feed).
- `authorize(body, signer=...)`: the body is serialised once and those exact bytes are signed (RFC 9421) and sent.
"""
from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Iterator

from .errors import AarApiError, AarNetworkError
from .http_signatures import RequestSigner
from .jcs import parse_json
from .jwks import JwksSource

RETRY_STATUSES = (429, 503)
MAX_BODY = 16 << 20


@dataclass
class Page:
    items: list[Any]
    next_cursor: str | None
    # the events feed: `next_cursor` is always the position reached, `has_more` says whether to read on now
    has_more: bool | None = None


def _quote(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")


class AarClient:
    def __init__(self, base_url: str, token: str | None = None, *, timeout: float = 30.0, max_retries: int = 4,
                 backoff_base: float = 0.25, backoff_max: float = 8.0, user_agent: str = "aar-sdk-python/1.0.0",
                 sleep: Callable[[float], None] = time.sleep, opener: urllib.request.OpenerDirector | None = None,
                 public_url: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        # The URL the service signs @target-uri against (AAR_PUBLIC_URL); the base URL by default.
        self.public_url = (public_url or base_url).rstrip("/")
        self.token = token
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.user_agent = user_agent
        self._sleep = sleep
        self._opener = opener or urllib.request.build_opener(_NoRedirect)
        self._jwks: JwksSource | None = None

    # -- transport -------------------------------------------------------------------------------------------------
    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), 300.0)
        return random.uniform(0, min(self.backoff_max, self.backoff_base * (2 ** attempt)))

    def request(self, method: str, path: str, *, body: Any = None, query: dict[str, Any] | None = None,
                headers: dict[str, str] | None = None, raw_body: bytes | None = None,
                sign: Callable[[bytes], dict[str, str]] | None = None, idempotency_key: str | None = None) -> Any:
        """One logical call, retried as the class says. `sign(body)` adds headers for the exact bytes sent."""
        url = self.base_url + path
        if query:
            pairs = {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in query.items() if v is not None}
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        data = raw_body if raw_body is not None else (None if body is None else json.dumps(
            body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8"))
        base_headers = {"accept": "application/json, application/problem+json", "user-agent": self.user_agent}
        if self.token:
            base_headers["authorization"] = f"Bearer {self.token}"
        if data is not None:
            base_headers["content-type"] = "application/json"
        if method == "POST":
            base_headers["idempotency-key"] = idempotency_key or str(uuid.uuid4())
        base_headers.update(headers or {})
        attempt = 0
        while True:
            send = dict(base_headers)
            if sign is not None:
                # A fresh signature per attempt: a nonce is accepted once, and a retry must not look like a replay.
                send.update(sign(data or b""))
            req = urllib.request.Request(url, data=data, method=method, headers=send)
            try:
                with self._opener.open(req, timeout=self.timeout) as res:
                    return self._decode(res.status, res.headers, res.read(MAX_BODY))
            except urllib.error.HTTPError as error:
                payload = error.read(MAX_BODY)
                failure = self._problem(error.code, error.headers, payload)
                if error.code in RETRY_STATUSES and attempt < self.max_retries:
                    self._sleep(self._delay(attempt, failure.retry_after))
                    attempt += 1
                    continue
                raise failure from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as error:
                if attempt < self.max_retries:
                    self._sleep(self._delay(attempt, None))
                    attempt += 1
                    continue
                raise AarNetworkError(f"{method} {path}: {getattr(error, 'reason', error)}") from error

    @staticmethod
    def _decode(status: int, headers: Any, payload: bytes) -> Any:
        if status == 204 or not payload:
            return None
        kind = (headers.get("content-type") or "").split(";")[0].strip()
        if kind.endswith("json"):
            return parse_json(payload)
        return payload

    @staticmethod
    def _retry_after(value: str | None) -> float | None:
        if not value:
            return None
        value = value.strip()
        if value.isdigit():
            return float(value)
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None

    def _problem(self, status: int, headers: Any, payload: bytes) -> AarApiError:
        retry_after = self._retry_after(headers.get("retry-after"))
        try:
            problem = parse_json(payload) if payload else {}
        except ValueError:
            problem = {}
        if not isinstance(problem, dict):
            problem = {}
        errors = problem.get("errors") if isinstance(problem.get("errors"), list) else []
        return AarApiError(status, str(problem.get("code") or f"http_{status}"), str(problem.get("title") or ""),
                           problem.get("detail"), errors, problem.get("request_id") or headers.get("x-request-id"),
                           retry_after, problem)

    def _get(self, path: str, **query: Any) -> Any:
        return self.request("GET", path, query=query)

    def _post(self, path: str, body: Any = None, idempotency_key: str | None = None) -> Any:
        return self.request("POST", path, body=body if body is not None else {}, idempotency_key=idempotency_key)

    def _pages(self, path: str, cursor_param: str = "cursor", **query: Any) -> Iterator[Any]:
        """Every item, page after page; a filtered page may be empty and still name the next one (listings with
        `min_score`), so only a null cursor (or `has_more: false`) ends the walk."""
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            page = self._get(path, **query, **({cursor_param: cursor} if cursor else {}))
            yield from page.get("items", [])
            cursor = page.get("next_cursor")
            if not cursor or page.get("has_more") is False:
                return
            # a list answering a cursor it gave before would be walked forever: a service bug must not hang us
            if cursor_param == "cursor" and cursor in seen:
                raise AarNetworkError(f"GET {path}: the service returned the cursor `{cursor}` twice")
            seen.add(cursor)

    # -- discovery, keys, health -----------------------------------------------------------------------------------
    def health(self) -> Any:
        return self._get("/healthz")

    def jwks(self) -> Any:
        return self._get("/.well-known/jwks.json")

    def jwks_source(self) -> JwksSource:
        """The issuer's JWKS, fetched once through this client and cached: pass it to every verifier."""
        if self._jwks is None:
            self._jwks = JwksSource(jwks=self.jwks())
        return self._jwks

    def openapi(self) -> Any:
        return self._get("/v1/openapi.json")

    def metrics(self) -> Any:
        return self._get("/metrics")

    # -- entities, card tokens, merchants --------------------------------------------------------------------------
    def create_entity(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        return self._post("/v1/entities", body, idempotency_key)

    def list_entities(self, **query: Any) -> Page:
        return Page(**self._get("/v1/entities", **query))

    def iter_entities(self, **query: Any) -> Iterator[Any]:
        return self._pages("/v1/entities", **query)

    def get_entity(self, entity_id: str) -> Any:
        return self._get(f"/v1/entities/{_quote(entity_id)}")

    def delete_entity(self, entity_id: str) -> Any:
        return self.request("DELETE", f"/v1/entities/{_quote(entity_id)}")

    def suspend_entity(self, entity_id: str) -> Any:
        return self._post(f"/v1/entities/{_quote(entity_id)}/suspend")

    def activate_entity(self, entity_id: str) -> Any:
        return self._post(f"/v1/entities/{_quote(entity_id)}/activate")

    def create_card_token(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        return self._post("/v1/card-tokens", body, idempotency_key)

    def list_card_tokens(self, **query: Any) -> Page:
        return Page(**self._get("/v1/card-tokens", **query))

    def iter_card_tokens(self, **query: Any) -> Iterator[Any]:
        return self._pages("/v1/card-tokens", **query)

    def get_card_token(self, token_id: str) -> Any:
        return self._get(f"/v1/card-tokens/{_quote(token_id)}")

    def suspend_card_token(self, token_id: str) -> Any:
        return self._post(f"/v1/card-tokens/{_quote(token_id)}/suspend")

    def activate_card_token(self, token_id: str) -> Any:
        return self._post(f"/v1/card-tokens/{_quote(token_id)}/activate")

    def create_merchant(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        return self._post("/v1/merchants", body, idempotency_key)

    def list_merchants(self, **query: Any) -> Page:
        return Page(**self._get("/v1/merchants", **query))

    def iter_merchants(self, **query: Any) -> Iterator[Any]:
        return self._pages("/v1/merchants", **query)

    def get_merchant(self, merchant_id: str) -> Any:
        return self._get(f"/v1/merchants/{_quote(merchant_id)}")

    # -- grants and delegation -------------------------------------------------------------------------------------
    def create_grant(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        return self._post("/v1/grants", body, idempotency_key)

    def list_grants(self, **query: Any) -> Page:
        return Page(**self._get("/v1/grants", **query))

    def iter_grants(self, **query: Any) -> Iterator[Any]:
        return self._pages("/v1/grants", **query)

    def get_grant(self, grant_id: str) -> Any:
        return self._get(f"/v1/grants/{_quote(grant_id)}")

    def get_grant_chain(self, grant_id: str) -> Any:
        return self._get(f"/v1/grants/{_quote(grant_id)}/chain")

    def get_delegation(self, delegation_id: str) -> Any:
        return self._get(f"/v1/delegations/{_quote(delegation_id)}")

    def revoke_grant(self, grant_id: str, body: dict[str, Any] | None = None, *, idempotency_key: str | None = None) -> Any:
        return self._post(f"/v1/grants/{_quote(grant_id)}/revoke", body or {}, idempotency_key)

    # -- tokens ----------------------------------------------------------------------------------------------------
    def create_token(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        return self._post("/v1/tokens", body, idempotency_key)

    def list_tokens(self, **query: Any) -> Page:
        return Page(**self._get("/v1/tokens", **query))

    def iter_tokens(self, **query: Any) -> Iterator[Any]:
        return self._pages("/v1/tokens", **query)

    def revoke_token(self, token_id: str) -> Any:
        return self.request("DELETE", f"/v1/tokens/{_quote(token_id)}")

    def get_own_token(self) -> Any:
        """The credential this client authenticates with: `{ token_id, role, principal_entity_id }`, no secret."""
        return self._get("/v1/tokens/self")

    # -- runtime ---------------------------------------------------------------------------------------------------
    def authorize(self, body: dict[str, Any], *, signer: RequestSigner | None = None,
                  idempotency_key: str | None = None, mandate: dict[str, str] | None = None) -> Any:
        """`POST /v1/runtime/authorize`; with `signer`, the exact bytes sent are signed for `public_url`. `mandate`
        (`{"mandate_id": ...}` or `{"presentation": ...}`, CONTRACT 21) presents the purchase's mandate: it is sent
        as the body's `mandate` member, inside the signed bytes."""
        if mandate is not None:
            body = {**body, "mandate": mandate}
        raw = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        target = self.public_url + "/v1/runtime/authorize"
        sign = (lambda data: signer.sign("POST", target, data)) if signer is not None else None
        return self.request("POST", "/v1/runtime/authorize", raw_body=raw, sign=sign, idempotency_key=idempotency_key)

    def report_outcome(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        return self._post("/v1/runtime/outcomes", body, idempotency_key)

    def set_risk_signal(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        return self._post("/v1/risk-signals", body, idempotency_key)

    # -- mandates and allowances (CONTRACT section 21) ------------------------------------------------------------
    def create_mandate_issuer(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        """Admin: `{ issuer, format: "ap2", jwks | jwks_uri }`; a mandate's issuer key comes from there only."""
        return self._post("/v1/mandate-issuers", body, idempotency_key)

    def list_mandate_issuers(self) -> Any:
        """Admin or auditor: `{ items: [...] }`, every registered issuer with its keys."""
        return self._get("/v1/mandate-issuers")

    def create_mandate(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        """`{ format: "ap2", presentation, parent_grant_id, actor_entity_id, payees? }`; refused: AarApiError 422
        `mandate_invalid` whose `errors` are `{ path, code, detail }`."""
        return self._post("/v1/mandates", body, idempotency_key)

    def get_mandate(self, mandate_id: str) -> Any:
        return self._get(f"/v1/mandates/{_quote(mandate_id)}")

    def revoke_mandate(self, mandate_id: str, *, idempotency_key: str | None = None) -> Any:
        """Revokes the mandate's grant, and through the cascade every grant under it: `{ mandate_id, state, grant }`
        with the grant's revocation as POST /v1/grants/{id}/revoke answers it."""
        return self._post(f"/v1/mandates/{_quote(mandate_id)}/revoke", {}, idempotency_key)

    def create_allowance(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        """An ACP `delegate_payment` allowance (`{ format: "acp", allowance, vaulted_token_id, parent_grant_id,
        actor_entity_id, risk_signals?, metadata? }`) becomes a one-use grant; never send a card number."""
        return self._post("/v1/allowances", body, idempotency_key)

    def get_allowance(self, allowance_id: str) -> Any:
        return self._get(f"/v1/allowances/{_quote(allowance_id)}")

    def revoke_allowance(self, allowance_id: str, *, idempotency_key: str | None = None) -> Any:
        """Revokes the allowance's grant (idempotent)."""
        return self._post(f"/v1/allowances/{_quote(allowance_id)}/revoke", {}, idempotency_key)

    # -- decisions, approvals, evidence ----------------------------------------------------------------------------
    def get_decision(self, decision_id: str) -> Any:
        return self._get(f"/v1/decisions/{_quote(decision_id)}")

    def get_decision_map(self, decision_map_id: str) -> Any:
        return self._get(f"/v1/decision-maps/{_quote(decision_map_id)}")

    def search_decisions(self, **query: Any) -> Page:
        """Decision summaries, newest first: `actor_entity_id`, `principal_entity_id`, `reason`, `decision`, `since`,
        `until`, `limit`, `cursor`."""
        return Page(**self._get("/v1/decisions", **query))

    def iter_decisions(self, **query: Any) -> Iterator[Any]:
        return self._pages("/v1/decisions", **query)

    def decision_stats(self, **query: Any) -> Any:
        """Counts per reason and per `bucket` (`hour` or `day`), under the same filters as the search."""
        return self._get("/v1/decisions/stats", **query)

    def list_approvals(self, **query: Any) -> Page:
        return Page(**self._get("/v1/approvals", **query))

    def iter_approvals(self, **query: Any) -> Iterator[Any]:
        return self._pages("/v1/approvals", **query)

    def get_approval(self, approval_id: str) -> Any:
        return self._get(f"/v1/approvals/{_quote(approval_id)}")

    def decide_approval(self, approval_id: str, approve: bool, sca_reference: str | None = None, *,
                        idempotency_key: str | None = None) -> Any:
        body: dict[str, Any] = {"approve": approve}
        if sca_reference is not None:
            body["sca_reference"] = sca_reference
        return self._post(f"/v1/approvals/{_quote(approval_id)}/decision", body, idempotency_key)

    def get_evidence_pack(self, evidence_pack_id: str) -> Any:
        """`ns:evidence-pack:<uuid>`: a decision's `evidence_refs[0]`."""
        return self._get(f"/v1/evidence-packs/{_quote(evidence_pack_id)}")

    def verify_evidence_pack_online(self, pack: dict[str, Any]) -> Any:
        """The service's own verification (`POST /v1/evidence-packs/verify`); `aar_sdk.verify_evidence_pack` is
        the offline one, which trusts nothing but the JWKS. Sent as `{"pack": …}`, the shape bundles take (the bare
        pack is deprecated since 1.0.0)."""
        return self._post("/v1/evidence-packs/verify", {"pack": pack})

    # -- proof bundles (CONTRACT section 12) ---------------------------------------------------------------------
    def assemble_bundle(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        """`{ policy_decision_id, purpose?: { purpose, requested_by?, ticket? } }` -> the signed bundle; verify it
        offline with `aar_sdk.verify_bundle`."""
        return self._post("/v1/bundles/assemble", body, idempotency_key)

    def get_bundle(self, bundle_id: str) -> Any:
        return self._get(f"/v1/bundles/{_quote(bundle_id)}")

    def get_bundle_part(self, bundle_id: str, name: str) -> Any:
        """One part exactly as the bundle holds it (object, list or None): `part_digest` of it is its `sha256`."""
        return self._get(f"/v1/bundles/{_quote(bundle_id)}/parts/{_quote(name)}")

    def verify_bundle_online(self, bundle: dict[str, Any], jwks: dict[str, Any] | None = None) -> Any:
        """The service's signed `ns.bundle_verification.v1`; `aar_sdk.verify_bundle` is the offline one."""
        return self._post("/v1/bundles/verify", {"bundle": bundle, **({"jwks": jwks} if jwks is not None else {})})

    # -- JSON Schemas (CONTRACT section 16) ------------------------------------------------------------------------
    def list_schemas(self) -> Any:
        return self._get("/v1/schemas")

    def get_schema(self, name: str) -> Any:
        """One JSON Schema 2020-12, e.g. `ns.webhook.v1`."""
        return self._get(f"/v1/schemas/{_quote(name)}")

    # -- compliance, self-audit, certification, conformance (CONTRACT sections 13 and 14) --------------------------
    def list_compliance_frameworks(self) -> Any:
        return self._get("/v1/compliance/frameworks")

    def get_compliance_framework(self, framework: str) -> Any:
        return self._get(f"/v1/compliance/frameworks/{_quote(framework)}")

    def create_compliance_projection(self, body: dict[str, Any], *, format: str | None = None,
                                     idempotency_key: str | None = None) -> Any:
        """`{ framework, evidence_pack_ids?, from?, to? }` -> the signed projection; `format="oscal"` gives the
        same as an OSCAL 1.1 `assessment-results` document."""
        return self.request("POST", "/v1/compliance/projections", body=body, query={"format": format},
                            idempotency_key=idempotency_key)

    def create_self_audit_run(self, *, idempotency_key: str | None = None) -> Any:
        return self._post("/v1/self-audit/runs", {}, idempotency_key)

    def get_self_audit_run(self, run_id: str) -> Any:
        return self._get(f"/v1/self-audit/runs/{_quote(run_id)}")

    def create_attestation(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        """Preview: `{ conformance_report_id, statement? }` -> a self-attestation signed as a JWS."""
        return self._post("/v1/certification/attestations", body, idempotency_key)

    def get_attestation(self, attestation_id: str) -> Any:
        return self._get(f"/v1/certification/attestations/{_quote(attestation_id)}")

    def verify_attestation_online(self, jws: Any) -> Any:
        """Preview: `jws` compact (str) or flattened (dict) -> `{ valid, attestation_id, checks }`."""
        return self._post("/v1/certification/verify", {"jws": jws})

    def list_conformance_profiles(self) -> Any:
        return self._get("/v1/conformance/profiles")

    def list_conformance_fixtures(self, profile: str | None = None) -> Any:
        return self._get("/v1/conformance/fixtures", profile=profile)

    def create_conformance_run(self, body: dict[str, Any] | None = None, *, idempotency_key: str | None = None) -> Any:
        """`{ profiles? }`: the service runs the kit against itself and answers the signed report."""
        return self._post("/v1/conformance/runs", body or {}, idempotency_key)

    def get_conformance_run(self, report_id: str) -> Any:
        return self._get(f"/v1/conformance/runs/{_quote(report_id)}")

    def retire_conformance_run(self, report_id: str) -> Any:
        """Retires what the run created (endpoints deleted, credentials and grants revoked, ...); idempotent."""
        return self._post(f"/v1/conformance/runs/{_quote(report_id)}/retire")

    # -- connectors and listings (CONTRACT section 15) -------------------------------------------------------------
    def list_connectors(self, **filters: Any) -> Any:
        """The catalogue (`{ items }`), filtered by `family`, `connector_type`, `status`, `profile`."""
        return self._get("/v1/connectors", **filters)

    def get_connector(self, connector_id: str) -> Any:
        return self._get(f"/v1/connectors/{_quote(connector_id)}")

    def create_listing(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        return self._post("/v1/listings", body, idempotency_key)

    def get_listing(self, listing_id: str) -> Any:
        return self._get(f"/v1/listings/{_quote(listing_id)}")

    def search_listings(self, **query: Any) -> Page:
        """`sector`, `regime`, `jurisdiction`, `pricing_model`, `publisher_tier`, `q`, `min_score`, `limit`,
        `cursor`; with `min_score` a page may hold fewer than `limit` items: use `iter_listings`."""
        return Page(**self._get("/v1/listings/search", **query))

    def iter_listings(self, **query: Any) -> Iterator[Any]:
        return self._pages("/v1/listings/search", **query)

    # -- events and webhooks ---------------------------------------------------------------------------------------
    def list_events(self, *, after: str | None = None, limit: int | None = None, event_type: str | None = None) -> Page:
        return Page(**self._get("/v1/events", after=after, limit=limit, event_type=event_type))

    def iter_events(self, *, after: str | None = None, event_type: str | None = None) -> Iterator[Any]:
        """Every event from `after` on, in commit order; the caller keeps the last `next_cursor` it saw."""
        return self._pages("/v1/events", cursor_param="after", event_type=event_type,
                           **({"after": after} if after else {}))

    def list_event_types(self) -> Any:
        return self._get("/v1/event-types")

    def create_webhook_endpoint(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        return self._post("/v1/webhook-endpoints", body, idempotency_key)

    def list_webhook_endpoints(self, **query: Any) -> Page:
        return Page(**self._get("/v1/webhook-endpoints", **query))

    def iter_webhook_endpoints(self, **query: Any) -> Iterator[Any]:
        return self._pages("/v1/webhook-endpoints", **query)

    def get_webhook_endpoint(self, endpoint_id: str) -> Any:
        return self._get(f"/v1/webhook-endpoints/{_quote(endpoint_id)}")

    def update_webhook_endpoint(self, endpoint_id: str, body: dict[str, Any]) -> Any:
        return self.request("PATCH", f"/v1/webhook-endpoints/{_quote(endpoint_id)}", body=body)

    def delete_webhook_endpoint(self, endpoint_id: str) -> Any:
        return self.request("DELETE", f"/v1/webhook-endpoints/{_quote(endpoint_id)}")

    def rotate_webhook_secret(self, endpoint_id: str) -> Any:
        return self._post(f"/v1/webhook-endpoints/{_quote(endpoint_id)}/rotate-secret")

    def enable_webhook_endpoint(self, endpoint_id: str) -> Any:
        return self._post(f"/v1/webhook-endpoints/{_quote(endpoint_id)}/enable")

    def disable_webhook_endpoint(self, endpoint_id: str) -> Any:
        return self._post(f"/v1/webhook-endpoints/{_quote(endpoint_id)}/disable")

    def list_webhook_deliveries(self, endpoint_id: str, **query: Any) -> Page:
        return Page(**self._get(f"/v1/webhook-endpoints/{_quote(endpoint_id)}/deliveries", **query))

    def replay_webhook_events(self, endpoint_id: str, body: dict[str, Any]) -> Any:
        return self._post(f"/v1/webhook-endpoints/{_quote(endpoint_id)}/replay", body)

    # -- audit chain -----------------------------------------------------------------------------------------------
    def audit_append(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
        return self._post("/v1/audit/append", body, idempotency_key)

    def audit_verify(self, *, incremental: bool = False) -> Any:
        """The whole chain, or with `incremental=True` only what is new since the last signed verification mark."""
        return self._get("/v1/audit/verify", **({"from": "verified"} if incremental else {}))

    def get_checkpoint(self) -> Any:
        return self._get("/v1/audit/checkpoint")

    def sign_checkpoint(self) -> Any:
        return self._post("/v1/audit/checkpoint")

    def get_audit_entry(self, index: int) -> Any:
        return self._get(f"/v1/audit/entries/{int(index)}")

    def get_inclusion_proof(self, index: int, size: int | None = None) -> Any:
        return self._get("/v1/audit/proofs/inclusion", index=index, size=size)

    def get_consistency_proof(self, first: int, second: int | None = None) -> Any:
        return self._get("/v1/audit/proofs/consistency", **{"from": first, "to": second})

    # -- reference data ---------------------------------------------------------------------------------------------
    def list_capabilities(self) -> Any:
        return self._get("/v1/capabilities")

    def get_capability(self, capability_id: str) -> Any:
        return self._get(f"/v1/capabilities/{_quote(capability_id)}")

    def get_scope(self, scope_id: str) -> Any:
        return self._get(f"/v1/scopes/{_quote(scope_id)}")

    def list_states(self) -> Any:
        return self._get("/v1/states")

    def get_state(self, state_id: str) -> Any:
        return self._get(f"/v1/states/{_quote(state_id)}")

    def list_policies(self) -> Any:
        return self._get("/v1/policies")

    def get_policy(self, policy_id: str) -> Any:
        return self._get(f"/v1/policies/{_quote(policy_id)}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, never followed: credentials must not travel to another origin."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None
