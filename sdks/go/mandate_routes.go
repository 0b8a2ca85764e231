package aar

// The mandate and allowance routes (CONTRACT section 21). A purchase presents its mandate through Authorize: put
// `"mandate": {"mandate_id": ...}` or `"mandate": {"presentation": ...}` in the body (it is then inside the signed
// bytes). Nothing here carries a card number: an ACP allowance binds the PSP's vaulted token id.

import (
	"context"
	"encoding/json"
	"errors"
)

// CreateMandateIssuer (admin) trusts an AP2 issuer: `{ issuer, format: "ap2", jwks | jwks_uri }`.
func (c *Client) CreateMandateIssuer(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/mandate-issuers", body, opts...)
}

// ListMandateIssuers (admin, auditor) lists every registered issuer with its keys: `{ items: [...] }`.
func (c *Client) ListMandateIssuers(ctx context.Context) (Object, error) {
	return c.get(ctx, "/v1/mandate-issuers", nil)
}

// CreateMandate makes an AP2 presentation a grant: `{ format: "ap2", presentation, parent_grant_id,
// actor_entity_id, payees? }`. A refusal is an *APIError 422 `mandate_invalid`; MandateErrors reads its faults.
func (c *Client) CreateMandate(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/mandates", body, opts...)
}

// GetMandate reads a mandate: `{ mandate_id, format, digest, issuer, constraints, grant, state }`.
func (c *Client) GetMandate(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/mandates/", id), nil)
}

// RevokeMandate revokes the mandate's grant, and through the cascade every grant under it.
func (c *Client) RevokeMandate(ctx context.Context, id string, opts ...RequestOption) (Object, error) {
	return c.post(ctx, p("/v1/mandates/", id, "/revoke"), nil, opts...)
}

// CreateAllowance makes an ACP `delegate_payment` allowance a one-use grant: `{ format: "acp", allowance,
// vaulted_token_id, parent_grant_id, actor_entity_id, risk_signals?, metadata? }`.
func (c *Client) CreateAllowance(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/allowances", body, opts...)
}

// GetAllowance reads an allowance: `{ allowance_id, grant, state }`.
func (c *Client) GetAllowance(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/allowances/", id), nil)
}

// RevokeAllowance revokes the allowance's grant (idempotent).
func (c *Client) RevokeAllowance(ctx context.Context, id string, opts ...RequestOption) (Object, error) {
	return c.post(ctx, p("/v1/allowances/", id, "/revoke"), nil, opts...)
}

// MandateErrors returns the faults of a refused mandate (422 `mandate_invalid`, each `{ path, code, detail }`),
// read from the problem document APIError keeps; nil for any other error.
func MandateErrors(err error) []MandateError {
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "mandate_invalid" {
		return nil
	}
	var problem struct {
		Errors []MandateError `json:"errors"`
	}
	if json.Unmarshal(apiErr.Body, &problem) != nil {
		return nil
	}
	return problem.Errors
}
