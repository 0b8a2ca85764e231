package aar

// The mandate and allowance routes (CONTRACT section 21): each sends its method, escaped path and body; every POST
// carries an Idempotency-Key and no GET does; a refused mandate's faults are read by MandateErrors; an authorize that
// presents a mandate carries it inside the signed bytes.

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestMandateRoutesSendTheirRequests(t *testing.T) {
	srv, seen := recordingServer(t, `{"ok":true}`)
	c := fastClient(srv.URL)
	ctx := context.Background()
	mandateID, allowanceID := "ns:mandate:0195f3a0/1", "ns:allowance:0195f3a0/2"
	body := Object{"probe": 1.5}
	cases := []struct {
		name, method, path string
		call               func() error
		wantBody           string
	}{
		{"CreateMandateIssuer", "POST", "/v1/mandate-issuers", func() error { _, e := c.CreateMandateIssuer(ctx, body); return e }, `{"probe":1.5}`},
		{"ListMandateIssuers", "GET", "/v1/mandate-issuers", func() error { _, e := c.ListMandateIssuers(ctx); return e }, ""},
		{"CreateMandate", "POST", "/v1/mandates", func() error { _, e := c.CreateMandate(ctx, body); return e }, `{"probe":1.5}`},
		{"GetMandate", "GET", "/v1/mandates/ns:mandate:0195f3a0%2F1", func() error { _, e := c.GetMandate(ctx, mandateID); return e }, ""},
		{"RevokeMandate", "POST", "/v1/mandates/ns:mandate:0195f3a0%2F1/revoke", func() error { _, e := c.RevokeMandate(ctx, mandateID); return e }, `{}`},
		{"CreateAllowance", "POST", "/v1/allowances", func() error { _, e := c.CreateAllowance(ctx, body); return e }, `{"probe":1.5}`},
		{"RevokeAllowance", "POST", "/v1/allowances/ns:allowance:0195f3a0%2F2/revoke", func() error { _, e := c.RevokeAllowance(ctx, allowanceID); return e }, `{}`},
		{"GetAllowance", "GET", "/v1/allowances/ns:allowance:0195f3a0%2F2", func() error { _, e := c.GetAllowance(ctx, allowanceID); return e }, ""},
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
		if r.method != tc.method || r.path != tc.path || r.auth != "Bearer t0k" || strings.TrimSpace(r.body) != tc.wantBody {
			t.Errorf("%s sent %s %s %q", tc.name, r.method, r.path, r.body)
		}
		if (r.method == "POST") != (r.idempotencyKey != "") {
			t.Errorf("%s: idempotency key %q on a %s", tc.name, r.idempotencyKey, r.method)
		}
	}
}

func TestMandateRefusalIsReadByMandateErrors(t *testing.T) {
	var mu sync.Mutex
	keys := []string{}
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		w.Header().Set("Content-Type", "application/problem+json")
		if calls == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"status":503,"code":"audit_unavailable"}`))
			return
		}
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = w.Write([]byte(`{"status":422,"code":"mandate_invalid","title":"t","errors":[` +
			`{"path":"/presentation/hops/0/header/kid","code":"issuer_key_unknown","detail":"not configured"},` +
			`{"path":"/presentation/hops/1/payload/sd_hash","code":"sd_hash_mismatch","detail":"not hop 0"}]}`))
	}))
	defer srv.Close()
	_, err := fastClient(srv.URL).CreateMandate(context.Background(), Object{"format": "ap2"})
	want := []MandateError{
		{"/presentation/hops/0/header/kid", "issuer_key_unknown", "not configured"},
		{"/presentation/hops/1/payload/sd_hash", "sd_hash_mismatch", "not hop 0"},
	}
	if got := MandateErrors(err); !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v (%v)", got, err)
	}
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] {
		t.Fatalf("one Idempotency-Key across the retry: %v", keys)
	}
	if MandateErrors(context.Canceled) != nil {
		t.Fatal("not a mandate refusal")
	}
}

func TestAuthorizePresentsAMandateInsideTheSignedBytes(t *testing.T) {
	var got *http.Request
	var gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, gotBody = r, string(b)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"decision":"allow_with_constraints"}`))
	}))
	defer srv.Close()
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	c := fastClient(srv.URL)
	c.Signer = &RequestSigner{KeyID: "ns:entity:agent:shopper-1", PrivateKey: key}
	body := Object{"actor_entity_id": "ns:entity:agent:shopper-1", "mandate": Object{"mandate_id": "ns:mandate:1"}}
	if _, err := c.Authorize(context.Background(), body); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gotBody, `"mandate":{"mandate_id":"ns:mandate:1"}`) {
		t.Fatalf("body %s", gotBody)
	}
	if got.Header.Get("Content-Digest") != ContentDigest([]byte(gotBody)) || !strings.Contains(got.Header.Get("Signature-Input"), "content-digest") {
		t.Fatalf("the signed content digest must cover the body with its mandate: %v", got.Header)
	}
}
