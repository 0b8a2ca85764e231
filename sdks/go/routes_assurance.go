package aar

import (
	"context"
	"net/http"
	"net/url"
)

// Compliance projections, self-audit, certification (preview) and conformance (CONTRACT sections 13 and 14).

// ComplianceFrameworks lists every framework's `ns.rule_pack.v1` (`{ frameworks: [...] }`).
func (c *Client) ComplianceFrameworks(ctx context.Context) (Object, error) {
	return c.get(ctx, "/v1/compliance/frameworks", nil)
}

// GetComplianceFramework reads one framework's rule pack (`soc2`, `iso27001`, `eu_ai_act`, `psd3`, `dora`,
// `nist_ai_rmf`).
func (c *Client) GetComplianceFramework(ctx context.Context, framework string) (Object, error) {
	return c.get(ctx, p("/v1/compliance/frameworks/", framework), nil)
}

// CreateComplianceProjection posts `{ framework, evidence_pack_ids?, from?, to? }` and answers the signed
// `ns.compliance_projection.v1`.
func (c *Client) CreateComplianceProjection(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/compliance/projections", body, opts...)
}

// CreateComplianceProjectionOSCAL is CreateComplianceProjection with `?format=oscal`: the same projection as an
// OSCAL 1.1 `assessment-results` document.
func (c *Client) CreateComplianceProjectionOSCAL(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	if body == nil {
		body = Object{}
	}
	var out Object
	err := c.Do(ctx, http.MethodPost, "/v1/compliance/projections", url.Values{"format": {"oscal"}}, body, &out, opts...)
	return out, err
}

// CreateSelfAuditRun audits the deployment against its own guarantees: a signed `ns.self_audit_report.v1`.
func (c *Client) CreateSelfAuditRun(ctx context.Context, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/self-audit/runs", nil, opts...)
}

// GetSelfAuditRun reads a stored self-audit report (`ns:self_audit_run:<uuid>`).
func (c *Client) GetSelfAuditRun(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/self-audit/runs/", id), nil)
}

// CreateAttestation (preview) posts `{ conformance_report_id, statement? }` and answers a self-attestation signed as
// a JWS (compact and flattened JSON serialisations).
func (c *Client) CreateAttestation(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/certification/attestations", body, opts...)
}

// GetAttestation (preview) reads a stored attestation (`ns:attestation:<uuid>`).
func (c *Client) GetAttestation(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/certification/attestations/", id), nil)
}

// VerifyAttestationRemote (preview) posts `{ jws }` (compact string or flattened object): `{ valid, checks }`.
func (c *Client) VerifyAttestationRemote(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/certification/verify", body, opts...)
}

// ConformanceProfiles lists the ten conformance profiles with their fixture counts.
func (c *Client) ConformanceProfiles(ctx context.Context) (Object, error) {
	return c.get(ctx, "/v1/conformance/profiles", nil)
}

// ConformanceFixtures lists the installed fixtures, of one profile when profile is not "".
func (c *Client) ConformanceFixtures(ctx context.Context, profile string) (Object, error) {
	var q url.Values
	if profile != "" {
		q = url.Values{"profile": {profile}}
	}
	return c.get(ctx, "/v1/conformance/fixtures", q)
}

// CreateConformanceRun posts `{ profiles? }`: the service runs the kit against itself and answers the signed
// `ns.conformance_report.v1` (seconds to a minute).
func (c *Client) CreateConformanceRun(ctx context.Context, body any, opts ...RequestOption) (Object, error) {
	return c.post(ctx, "/v1/conformance/runs", body, opts...)
}

// GetConformanceRun reads a stored conformance report (`ns:conformance_report:<uuid>`).
func (c *Client) GetConformanceRun(ctx context.Context, id string) (Object, error) {
	return c.get(ctx, p("/v1/conformance/runs/", id), nil)
}

// RetireConformanceRun retires what run id created (webhook endpoints deleted, credentials and grants revoked,
// entities tombstoned, listings withdrawn); idempotent: `{run_id, retired: {kind: count}, failed}`.
func (c *Client) RetireConformanceRun(ctx context.Context, id string) (Object, error) {
	return c.post(ctx, p("/v1/conformance/runs/", id, "/retire"), nil)
}
