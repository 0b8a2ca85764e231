package aar

// The key-source argument, the optional clock and the private-JWK import, alike in the three SDKs (issue 26): a JWKS
// URL or an issuer URL, told apart by vectors/sdk/jwks-locations.json (walked by the TypeScript and Python suites
// too) and fetched over loopback only from the URL it resolves to.

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestJWKSLocationVectors(t *testing.T) {
	cases := obj(readJSONFile(t, filepath.Join(vectorPath(t, "sdk"), "jwks-locations.json")))["cases"].([]any)
	if len(cases) < 10 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, raw := range cases {
		c := obj(raw)
		t.Run(c["desc"].(string), func(t *testing.T) {
			var location JWKSLocation
			switch in := c["input"].(type) {
			case string:
				location.URL = in
			case map[string]any:
				location.JWKSURL, _ = in["jwks_url"].(string)
				location.IssuerURL, _ = in["issuer_url"].(string)
			}
			got, err := ResolveJWKSURL(location)
			if c["wantErr"] == true {
				if err == nil || !errors.Is(err, ErrInvalidJWKSLocation) {
					t.Fatalf("want a refusal, got %q %v", got, err)
				}
				return
			}
			if err != nil || got != c["want"] {
				t.Fatalf("got %q %v, want %v", got, err, c["want"])
			}
		})
	}
}

// loopbackJWKS serves the SDK vectors' JWKS on 127.0.0.1 and records every path asked for; /moved redirects.
func loopbackJWKS(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	jwks := readJSONFile(t, filepath.Join(vectorPath(t, "sdk"), "jwks.json"))
	var mu sync.Mutex
	var paths []string
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.RequestURI())
		mu.Unlock()
		if r.URL.Path == "/moved/jwks.json" {
			http.Redirect(w, r, "/elsewhere/jwks.json", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(mustJSON(t, jwks))
	}))
	t.Cleanup(server.Close)
	return server, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), paths...) }
}

func TestJWKSCacheFetchesOnlyWhatItNames(t *testing.T) {
	server, paths := loopbackJWKS(t)
	ctx := context.Background()
	byIssuer, err := NewJWKSCacheAt(JWKSLocation{IssuerURL: server.URL + "/tenant-a"})
	if err != nil {
		t.Fatal(err)
	}
	byJWKSURL, err := NewJWKSCacheAt(JWKSLocation{JWKSURL: server.URL + "/keys/set"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cache := range []*JWKSCache{
		NewJWKSCache(server.URL + "/tenant-a/"), byIssuer, NewJWKSCache(server.URL + "/keys/jwks.json"), byJWKSURL,
	} {
		if set, err := cache.Get(ctx); err != nil || len(set.Keys) == 0 {
			t.Fatalf("%s: %v %v", cache.URL, set, err)
		}
	}
	want := []string{"/tenant-a/.well-known/jwks.json", "/tenant-a/.well-known/jwks.json", "/keys/jwks.json", "/keys/set"}
	if got := paths(); !reflect.DeepEqual(got, want) {
		t.Fatalf("fetched %v, want %v", got, want)
	}
}

func TestJWKSCacheRefusesRedirectsAndBadURLs(t *testing.T) {
	server, paths := loopbackJWKS(t)
	ctx := context.Background()
	if _, err := NewJWKSCache(server.URL + "/moved/jwks.json").Get(ctx); err == nil {
		t.Fatal("a redirected jwks was accepted")
	}
	if got := paths(); !reflect.DeepEqual(got, []string{"/moved/jwks.json"}) {
		t.Fatalf("fetched %v: the redirect was followed", got)
	}
	if _, err := NewJWKSCache(server.URL + "?tenant=a").Get(ctx); !errors.Is(err, ErrInvalidJWKSLocation) {
		t.Fatalf("an issuer url with a query: %v", err)
	}
	if _, err := NewJWKSCacheAt(JWKSLocation{URL: server.URL, IssuerURL: server.URL}); err == nil {
		t.Fatal("two locations at once were accepted")
	}
	if got := len(paths()); got != 1 {
		t.Fatalf("a refused url was fetched (%d requests)", got)
	}
}

func TestPrivateKeyFromJWK(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	jwk := PrivateJWKOf(priv, "ns:entity:agent:a")
	key, kid, err := ParsePrivateJWK(mustJSON(t, jwk))
	if err != nil || kid != "ns:entity:agent:a" || !key.Equal(priv) {
		t.Fatalf("round trip: %v %q", err, kid)
	}
	if sig := ed25519.Sign(key, []byte("m")); !ed25519.Verify(pub, []byte("m"), sig) {
		t.Fatal("the imported key does not sign for its public key")
	}
	_, other, _ := ed25519.GenerateKey(nil)
	mismatched := jwk
	mismatched.X = PrivateJWKOf(other, "").X
	cases := map[string]PrivateJWK{
		"x of another key":  mismatched,
		"no x":              {Kty: "OKP", Crv: "Ed25519", D: jwk.D},
		"public key only":   {Kty: "OKP", Crv: "Ed25519", X: jwk.X},
		"another curve":     {Kty: "OKP", Crv: "X25519", X: jwk.X, D: jwk.D},
		"another kty":       {Kty: "EC", Crv: "Ed25519", X: jwk.X, D: jwk.D},
		"short d":           {Kty: "OKP", Crv: "Ed25519", X: jwk.X, D: jwk.D[:40]},
		"padded d":          {Kty: "OKP", Crv: "Ed25519", X: jwk.X, D: jwk.D + "="},
		"standard base64 d": {Kty: "OKP", Crv: "Ed25519", X: jwk.X, D: base64.StdEncoding.EncodeToString(priv.Seed())},
		"alg HS256":         {Kty: "OKP", Crv: "Ed25519", X: jwk.X, D: jwk.D, Alg: "HS256"},
	}
	for name, bad := range cases {
		if name == "standard base64 d" && bad.D == jwk.D {
			continue // no + or / in this seed: the same text in both alphabets
		}
		if _, err := PrivateKeyFromJWK(bad); !errors.Is(err, ErrInvalidPrivateJWK) {
			t.Errorf("%s: accepted (%v)", name, err)
		} else if strings.Contains(err.Error(), jwk.D) {
			t.Errorf("%s: the error shows d", name)
		}
	}
	if _, _, err := ParsePrivateJWK([]byte(`[1]`)); !errors.Is(err, ErrInvalidPrivateJWK) {
		t.Errorf("not an object: %v", err)
	}
}

func TestDelegationChainNowDefaultsToTheClock(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(vectorPath(t, "delegation"), "*.json"))
	ctx := context.Background()
	for _, f := range files {
		in := obj(obj(readJSONFile(t, f))["input"])
		keys := jwksOf(t, in["jwks"])
		omitted := VerifyDelegationChain(ctx, in["chain"], keys, "")
		explicit := VerifyDelegationChain(ctx, in["chain"], keys, clockNowISO())
		if omitted.Valid != explicit.Valid || !reflect.DeepEqual(omitted.Problems, explicit.Problems) {
			t.Fatalf("%s: now omitted %+v, the clock %+v", filepath.Base(f), omitted.Problems, explicit.Problems)
		}
		for _, p := range omitted.Problems {
			if p.Field == nil && p.Code == "malformed_chain" {
				t.Fatalf("%s: an omitted now was read as malformed: %+v", filepath.Base(f), p)
			}
		}
	}
}

// resignedAt is vectors/webhooks/valid-shared-secret.json with its timestamp moved to ts and signed again.
func resignedAt(t *testing.T, ts int64) WebhookVerifyOptions {
	in := obj(obj(readJSONFile(t, filepath.Join(vectorPath(t, "webhooks"), "valid-shared-secret.json")))["input"])
	o := deliveryOptions(t, in)
	o.Now = 0
	key, _ := base64.StdEncoding.DecodeString(o.Secrets[0][len("whsec_"):])
	mac := hmac.New(sha256.New, key)
	stamp := strconv.FormatInt(ts, 10)
	mac.Write([]byte(o.Headers.Get("webhook-id") + "." + stamp + "."))
	mac.Write(o.Body)
	o.Headers.Set("webhook-timestamp", stamp)
	o.Headers.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	return o
}

func TestWebhookNowDefaultsToTheClock(t *testing.T) {
	ctx := context.Background()
	if got := VerifyWebhook(ctx, resignedAt(t, time.Now().Unix())); !got.Valid {
		t.Fatalf("a fresh delivery with Now unset: %+v", got)
	}
	if got := VerifyWebhook(ctx, resignedAt(t, time.Now().Unix()-3600)); got.Valid || got.Code != "timestamp_stale" {
		t.Fatalf("an hour-old delivery with Now unset: %+v", got)
	}
}
