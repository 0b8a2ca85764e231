package aar

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// Every route of the service (docs/openapi.json, CONTRACT sections 3-15). Bodies are any value encoding/json
// marshals (a struct of this package, an Object, json.RawMessage); answers are Objects. Path ids are escaped.

func p(parts ...string) string {
	out := ""
	for i, s := range parts {
		if i%2 == 1 {
			s = url.PathEscape(s)
		}
		out += s
	}
	return out
}

func (c *Client) get(ctx context.Context, path string, q url.Values) (Object, error) {
	var out Object
	err := c.Do(ctx, http.MethodGet, path, q, nil, &out)
	return out, err
}

func (c *Client) post(ctx context.Context, path string, body any, opts ...RequestOption) (Object, error) {
	if body == nil {
		body = Object{}
	}
	var out Object
	err := c.Do(ctx, http.MethodPost, path, nil, body, &out, opts...)
	return out, err
}

func (c *Client) del(ctx context.Context, path string) (Object, error) {
	var out Object
	err := c.Do(ctx, http.MethodDelete, path, nil, nil, &out)
	return out, err
}

// Health and discovery.
func (c *Client) Healthz(ctx context.Context) (Object, error) { return c.get(ctx, "/healthz", nil) }
func (c *Client) OpenAPI(ctx context.Context) (Object, error) {
	return c.get(ctx, "/v1/openapi.json", nil)
}
func (c *Client) EventTypes(ctx context.Context) (Object, error) {
	return c.get(ctx, "/v1/event-types", nil)
}
func (c *Client) Schemas(ctx context.Context) (Object, error) { return c.get(ctx, "/v1/schemas", nil) }
func (c *Client) Schema(ctx context.Context, name string) (Object, error) {
	return c.get(ctx, p("/v1/schemas/", name), nil)
}

// JWKS fetches the issuer's key set (prefer a JWKSCache for verification: it fetches once).
func (c *Client) JWKS(ctx context.Context) (JWKS, error) {
	var out JWKS
	err := c.Do(ctx, http.MethodGet, "/.well-known/jwks.json", nil, nil, &out)
	return out, err
}

// Entities.
func (c *Client) CreateEntity(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/entities", body, opts...)
}
func (c *Client) GetEntity(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/entities/", id), nil)
}
func (c *Client) ListEntities(query url.Values) *Pager {
	return c.pager("/v1/entities", query, "cursor")
}
func (c *Client) SuspendEntity(ctx context.Context, id string) (Object, error) {
	return c.post(ctx, p("/v1/entities/", id, "/suspend"), nil)
}
func (c *Client) ActivateEntity(ctx context.Context, id string) (Object, error) {
	return c.post(ctx, p("/v1/entities/", id, "/activate"), nil)
}
func (c *Client) DeleteEntity(ctx context.Context, id string) (Object, error) {
	return c.del(ctx, p("/v1/entities/", id))
}

// Card tokens.
func (c *Client) CreateCardToken(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/card-tokens", body, opts...)
}
func (c *Client) GetCardToken(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/card-tokens/", id), nil)
}
func (c *Client) ListCardTokens(query url.Values) *Pager {
	return c.pager("/v1/card-tokens", query, "cursor")
}
func (c *Client) SuspendCardToken(ctx context.Context, id string) (Object, error) {
	return c.post(ctx, p("/v1/card-tokens/", id, "/suspend"), nil)
}
func (c *Client) ActivateCardToken(ctx context.Context, id string) (Object, error) {
	return c.post(ctx, p("/v1/card-tokens/", id, "/activate"), nil)
}

// Merchants.
func (c *Client) CreateMerchant(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/merchants", body, opts...)
}
func (c *Client) GetMerchant(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/merchants/", id), nil)
}
func (c *Client) ListMerchants(query url.Values) *Pager {
	return c.pager("/v1/merchants", query, "cursor")
}

// Grants and delegation (CONTRACT section 5).
func (c *Client) CreateGrant(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/grants", body, opts...)
}
func (c *Client) GetGrant(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/grants/", id), nil)
}
func (c *Client) ListGrants(query url.Values) *Pager { return c.pager("/v1/grants", query, "cursor") }
func (c *Client) GetGrantChain(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/grants/", id, "/chain"), nil)
}
func (c *Client) GetDelegation(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/delegations/", id), nil)
}
func (c *Client) RevokeGrant(ctx context.Context, id string, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, p("/v1/grants/", id, "/revoke"), body, opts...)
}

// Tokens.
func (c *Client) CreateToken(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/tokens", body, opts...)
}
func (c *Client) ListTokens(query url.Values) *Pager { return c.pager("/v1/tokens", query, "cursor") }
func (c *Client) DeleteToken(ctx context.Context, id string) (Object, error) {
	return c.del(ctx, p("/v1/tokens/", id))
}

// Runtime (CONTRACT section 3). With c.Signer set, Authorize is signed (RFC 9421) on every attempt.
func (c *Client) Authorize(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/runtime/authorize", body, opts...)
}
func (c *Client) RecordOutcome(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/runtime/outcomes", body, opts...)
}
func (c *Client) GetDecision(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/decisions/", id), nil)
}
func (c *Client) GetDecisionMap(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/decision-maps/", id), nil)
}

// Approvals (CONTRACT section 6).
func (c *Client) ListApprovals(query url.Values) *Pager {
	return c.pager("/v1/approvals", query, "cursor")
}
func (c *Client) GetApproval(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/approvals/", id), nil)
}
func (c *Client) DecideApproval(ctx context.Context, id string, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, p("/v1/approvals/", id, "/decision"), body, opts...)
}

// Risk signals.
func (c *Client) CreateRiskSignal(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/risk-signals", body, opts...)
}

// Events: the pull feed, resumable from Pager.Cursor (`after`).
func (c *Client) Events(after string, query url.Values) *Pager {
	pg := c.pager("/v1/events", query, "after")
	if after != "" {
		pg.next = &after
	}
	return pg
}

// Evidence.
func (c *Client) GetEvidencePack(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/evidence-packs/", id), nil)
}

// VerifyEvidencePackRemote asks the service to verify a pack; it is sent as {"pack": …}, the shape bundles take
// (the bare pack is deprecated since 1.0.0). VerifyEvidencePack is the offline check, which trusts only the JWKS.
func (c *Client) VerifyEvidencePackRemote(ctx context.Context, pack any) (Object, error) {
	return c.post(ctx, "/v1/evidence-packs/verify", map[string]any{"pack": pack})
}

// Audit chain (CONTRACT section 8).
func (c *Client) AuditAppend(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/audit/append", body, opts...)
}
func (c *Client) AuditVerify(ctx context.Context) (Object, error) {
	return c.get(ctx, "/v1/audit/verify", nil)
}

// AuditVerifyIncremental verifies only what is new since the last signed verification mark (`from=verified`).
func (c *Client) AuditVerifyIncremental(ctx context.Context) (Object, error) {
	return c.get(ctx, "/v1/audit/verify", url.Values{"from": {"verified"}})
}
func (c *Client) AuditCheckpoint(ctx context.Context) (Object, error) {
	return c.get(ctx, "/v1/audit/checkpoint", nil)
}
func (c *Client) SignAuditCheckpoint(ctx context.Context) (Object, error) {
	return c.post(ctx, "/v1/audit/checkpoint", nil)
}
func (c *Client) AuditEntry(ctx context.Context, index uint64) (Object, error) {
	return c.get(ctx, "/v1/audit/entries/"+strconv.FormatUint(index, 10), nil)
}
func (c *Client) InclusionProof(ctx context.Context, index, size uint64) (Object, error) {
	return c.get(ctx, "/v1/audit/proofs/inclusion", url.Values{
		"index": {strconv.FormatUint(index, 10)}, "size": {strconv.FormatUint(size, 10)},
	})
}
func (c *Client) ConsistencyProof(ctx context.Context, from, to uint64) (Object, error) {
	return c.get(ctx, "/v1/audit/proofs/consistency", url.Values{
		"from": {strconv.FormatUint(from, 10)}, "to": {strconv.FormatUint(to, 10)},
	})
}

// Webhook endpoints (CONTRACT section 9).
func (c *Client) CreateWebhookEndpoint(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/webhook-endpoints", body, opts...)
}
func (c *Client) ListWebhookEndpoints(query url.Values) *Pager {
	return c.pager("/v1/webhook-endpoints", query, "cursor")
}
func (c *Client) GetWebhookEndpoint(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/webhook-endpoints/", id), nil)
}
func (c *Client) UpdateWebhookEndpoint(ctx context.Context, id string, body any) (Object, error) {
	var out Object
	err := c.Do(ctx, http.MethodPatch, p("/v1/webhook-endpoints/", id), nil, body, &out)
	return out, err
}
func (c *Client) DeleteWebhookEndpoint(ctx context.Context, id string) (Object, error) {
	return c.del(ctx, p("/v1/webhook-endpoints/", id))
}
func (c *Client) RotateWebhookSecret(ctx context.Context, id string) (Object, error) {
	return c.post(ctx, p("/v1/webhook-endpoints/", id, "/rotate-secret"), nil)
}
func (c *Client) EnableWebhookEndpoint(ctx context.Context, id string) (Object, error) {
	return c.post(ctx, p("/v1/webhook-endpoints/", id, "/enable"), nil)
}
func (c *Client) DisableWebhookEndpoint(ctx context.Context, id string) (Object, error) {
	return c.post(ctx, p("/v1/webhook-endpoints/", id, "/disable"), nil)
}
func (c *Client) ListWebhookDeliveries(id string, query url.Values) *Pager {
	return c.pager(p("/v1/webhook-endpoints/", id, "/deliveries"), query, "cursor")
}
func (c *Client) ReplayWebhookEvents(ctx context.Context, id string, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, p("/v1/webhook-endpoints/", id, "/replay"), body, opts...)
}

// Reference resources (CONTRACT section 11).
func (c *Client) Capabilities(ctx context.Context) (Object, error) {
	return c.get(ctx, "/v1/capabilities", nil)
}
func (c *Client) GetCapability(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/capabilities/", id), nil)
}
func (c *Client) GetScope(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/scopes/", id), nil)
}
func (c *Client) States(ctx context.Context) (Object, error) { return c.get(ctx, "/v1/states", nil) }
func (c *Client) GetState(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/states/", id), nil)
}
func (c *Client) Policies(ctx context.Context) (Object, error) {
	return c.get(ctx, "/v1/policies", nil)
}
func (c *Client) GetPolicy(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/policies/", id), nil)
}
