package aar

import (
	"context"
	"encoding/json"
	"net/http"
)

// Proof bundles (CONTRACT section 12): assemble one decision's signed bundle, read it or one of its parts, and ask
// the service to verify one. VerifyBundle verifies offline against the JWKS alone, and is the one to trust.

// AssembleBundle posts `{ policy_decision_id, purpose?: { purpose, requested_by?, ticket? } }` and answers the signed
// `ns.authority_proof_bundle.v1` (stored write-once).
func (c *Client) AssembleBundle(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/bundles/assemble", body, opts...)
}

// GetBundle reads a stored bundle (`ns:bundle:<uuid>`).
func (c *Client) GetBundle(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/bundles/", id), nil)
}

// GetBundlePart reads one part exactly as the bundle holds it (an object, an array or null: raw JSON), what its
// reference's `href` resolves to; BundlePartDigest of it is the reference's `sha256`.
func (c *Client) GetBundlePart(ctx context.Context, id, name string) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.Do(ctx, http.MethodGet, p("/v1/bundles/", id, "/parts/", name), nil, nil, &out)
	return out, err
}

// VerifyBundleRemote posts `{ bundle, jwks? }` and answers the service's signed `ns.bundle_verification.v1`.
func (c *Client) VerifyBundleRemote(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/bundles/verify", body, opts...)
}
