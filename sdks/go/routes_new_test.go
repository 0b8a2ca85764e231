package aar

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

type recorded struct {
	method, path, rawQuery, body, idempotencyKey, auth string
}

// recordingServer answers every request with answer and keeps what it saw.
func recordingServer(t *testing.T, answer string) (*httptest.Server, *[]recorded) {
	var mu sync.Mutex
	seen := []recorded{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, recorded{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, string(body),
			r.Header.Get("Idempotency-Key"), r.Header.Get("Authorization")})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(answer))
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

// TestNewRoutesSendTheirRequests: every route of bundles, compliance, self-audit, certification, conformance,
// connectors, listings, decision search and tokens/self sends its method, escaped path, query and body; every POST
// carries an Idempotency-Key and no GET does.
func TestNewRoutesSendTheirRequests(t *testing.T) {
	srv, seen := recordingServer(t, `{"ok":true,"items":[],"next_cursor":null}`)
	c := fastClient(srv.URL)
	ctx := context.Background()
	id := "ns:bundle:a/b"
	esc := "ns:bundle:a%2Fb"
	body := Object{"probe": 1.5}
	cases := []struct {
		name                   string
		call                   func() error
		method, path, rawQuery string
		wantBody               bool
	}{
		{"AssembleBundle", func() error { _, e := c.AssembleBundle(ctx, body); return e }, "POST", "/v1/bundles/assemble", "", true},
		{"GetBundle", func() error { _, e := c.GetBundle(ctx, id); return e }, "GET", "/v1/bundles/" + esc, "", false},
		{"GetBundlePart", func() error { _, e := c.GetBundlePart(ctx, id, "decision_map"); return e }, "GET", "/v1/bundles/" + esc + "/parts/decision_map", "", false},
		{"VerifyBundleRemote", func() error { _, e := c.VerifyBundleRemote(ctx, body); return e }, "POST", "/v1/bundles/verify", "", true},
		{"Schemas", func() error { _, e := c.Schemas(ctx); return e }, "GET", "/v1/schemas", "", false},
		{"Schema", func() error { _, e := c.Schema(ctx, "ns.webhook.v1"); return e }, "GET", "/v1/schemas/ns.webhook.v1", "", false},
		{"ComplianceFrameworks", func() error { _, e := c.ComplianceFrameworks(ctx); return e }, "GET", "/v1/compliance/frameworks", "", false},
		{"GetComplianceFramework", func() error { _, e := c.GetComplianceFramework(ctx, "soc2"); return e }, "GET", "/v1/compliance/frameworks/soc2", "", false},
		{"CreateComplianceProjection", func() error { _, e := c.CreateComplianceProjection(ctx, body); return e }, "POST", "/v1/compliance/projections", "", true},
		{"CreateComplianceProjectionOSCAL", func() error { _, e := c.CreateComplianceProjectionOSCAL(ctx, body); return e }, "POST", "/v1/compliance/projections", "format=oscal", true},
		{"CreateSelfAuditRun", func() error { _, e := c.CreateSelfAuditRun(ctx); return e }, "POST", "/v1/self-audit/runs", "", true},
		{"GetSelfAuditRun", func() error { _, e := c.GetSelfAuditRun(ctx, id); return e }, "GET", "/v1/self-audit/runs/" + esc, "", false},
		{"CreateAttestation", func() error { _, e := c.CreateAttestation(ctx, body); return e }, "POST", "/v1/certification/attestations", "", true},
		{"GetAttestation", func() error { _, e := c.GetAttestation(ctx, id); return e }, "GET", "/v1/certification/attestations/" + esc, "", false},
		{"VerifyAttestationRemote", func() error { _, e := c.VerifyAttestationRemote(ctx, body); return e }, "POST", "/v1/certification/verify", "", true},
		{"ConformanceProfiles", func() error { _, e := c.ConformanceProfiles(ctx); return e }, "GET", "/v1/conformance/profiles", "", false},
		{"ConformanceFixtures", func() error { _, e := c.ConformanceFixtures(ctx, "ns.bundles.v1"); return e }, "GET", "/v1/conformance/fixtures", "profile=ns.bundles.v1", false},
		{"ConformanceFixturesAll", func() error { _, e := c.ConformanceFixtures(ctx, ""); return e }, "GET", "/v1/conformance/fixtures", "", false},
		{"CreateConformanceRun", func() error { _, e := c.CreateConformanceRun(ctx, body); return e }, "POST", "/v1/conformance/runs", "", true},
		{"GetConformanceRun", func() error { _, e := c.GetConformanceRun(ctx, id); return e }, "GET", "/v1/conformance/runs/" + esc, "", false},
		{"RetireConformanceRun", func() error { _, e := c.RetireConformanceRun(ctx, id); return e }, "POST", "/v1/conformance/runs/" + esc + "/retire", "", true},
		{"Connectors", func() error {
			_, e := c.Connectors(ctx, url.Values{"family": {"payments"}, "status": {"active"}})
			return e
		}, "GET", "/v1/connectors", "family=payments&status=active", false},
		{"GetConnector", func() error { _, e := c.GetConnector(ctx, "stripe"); return e }, "GET", "/v1/connectors/stripe", "", false},
		{"CreateListing", func() error { _, e := c.CreateListing(ctx, body); return e }, "POST", "/v1/listings", "", true},
		{"GetListing", func() error { _, e := c.GetListing(ctx, "ns:listing:x"); return e }, "GET", "/v1/listings/ns:listing:x", "", false},
		{"SearchListings", func() error {
			_, e := c.SearchListings(url.Values{"regime": {"psd3"}, "min_score": {"60"}}).All(ctx)
			return e
		}, "GET", "/v1/listings/search", "min_score=60&regime=psd3", false},
		{"SearchDecisions", func() error {
			_, e := c.SearchDecisions(url.Values{"decision": {"deny"}}).All(ctx)
			return e
		}, "GET", "/v1/decisions", "decision=deny", false},
		{"DecisionStats", func() error { _, e := c.DecisionStats(ctx, url.Values{"bucket": {"hour"}}); return e }, "GET", "/v1/decisions/stats", "bucket=hour", false},
		{"AuditVerify", func() error { _, e := c.AuditVerify(ctx); return e }, "GET", "/v1/audit/verify", "", false},
		{"AuditVerifyIncremental", func() error { _, e := c.AuditVerifyIncremental(ctx); return e }, "GET", "/v1/audit/verify", "from=verified", false},
		{"TokenSelf", func() error { _, e := c.TokenSelf(ctx); return e }, "GET", "/v1/tokens/self", "", false},
	}
	for _, tc := range cases {
		before := len(*seen)
		if err := tc.call(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(*seen) != before+1 {
			t.Fatalf("%s sent %d requests", tc.name, len(*seen)-before)
		}
		r := (*seen)[before]
		if r.method != tc.method || r.path != tc.path || r.rawQuery != tc.rawQuery || r.auth != "Bearer t0k" {
			t.Errorf("%s sent %s %s?%s", tc.name, r.method, r.path, r.rawQuery)
		}
		if (r.method == "POST") != (r.idempotencyKey != "") {
			t.Errorf("%s: idempotency key %q on a %s", tc.name, r.idempotencyKey, r.method)
		}
		if tc.wantBody && tc.name != "CreateSelfAuditRun" && tc.name != "RetireConformanceRun" && r.body != `{"probe":1.5}` {
			t.Errorf("%s sent body %q", tc.name, r.body)
		}
		if !tc.wantBody && r.body != "" {
			t.Errorf("%s sent a body on a GET: %q", tc.name, r.body)
		}
	}
}

func TestBundlePartIsRawJSONOfAnyShape(t *testing.T) {
	srv, _ := recordingServer(t, `[{"ref":"ns:policy:default"}]`)
	part, err := fastClient(srv.URL).GetBundlePart(context.Background(), "ns:bundle:1", "rule_pack_refs")
	if err != nil || strings.TrimSpace(string(part)) != `[{"ref":"ns:policy:default"}]` {
		t.Fatalf("%s %v", part, err)
	}
	var refs []any
	if json.Unmarshal(part, &refs) != nil || len(refs) != 1 {
		t.Fatal(refs)
	}
}

// TestListingSearchReadsPastEmptyFilteredPages: with min_score a page may be empty and still name the next one.
func TestListingSearchReadsPastEmptyFilteredPages(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Query().Get("cursor") {
		case "":
			_, _ = w.Write([]byte(`{"items":[],"next_cursor":"p2"}`))
		case "p2":
			_, _ = w.Write([]byte(`{"items":[{"listing_id":"ns:listing:a"}],"next_cursor":"p3"}`))
		case "p3":
			_, _ = w.Write([]byte(`{"items":[{"listing_id":"ns:listing:b"}],"next_cursor":"p3"}`))
		}
	}))
	defer srv.Close()
	items, err := fastClient(srv.URL).SearchListings(url.Values{"min_score": {"90"}}).All(context.Background())
	if len(items) != 1 || items[0]["listing_id"] != "ns:listing:a" {
		t.Fatalf("%v", items)
	}
	// the third page repeats its cursor: an error, not an endless walk
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("err %v", err)
	}
}

func TestNewRoutesRaiseTypedErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = w.Write([]byte(`{"type":"about:blank","title":"t","status":422,"code":"reference_not_found","errors":[{"path":"/conformance_report_id","message":"unknown"}]}`))
	}))
	defer srv.Close()
	_, err := fastClient(srv.URL).CreateAttestation(context.Background(), Object{"conformance_report_id": "x"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 422 || apiErr.Code != "reference_not_found" || len(apiErr.Errors) != 1 {
		t.Fatalf("%#v", err)
	}
}
