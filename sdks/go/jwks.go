package aar

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sync"
)

// JWK is an Ed25519 public key (RFC 8037) as the issuer's JWKS publishes it. Private members are never read.
type JWK struct {
	Kty        string `json:"kty"`
	Crv        string `json:"crv"`
	X          string `json:"x"`
	Kid        string `json:"kid,omitempty"`
	Alg        string `json:"alg,omitempty"`
	Use        string `json:"use,omitempty"`
	ValidFrom  string `json:"valid_from,omitempty"`
	ValidUntil string `json:"valid_until,omitempty"`
}

// JWKS is a key set (`GET /.well-known/jwks.json`).
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// KeySource gives the trusted public key for a key id. Implementations must consult only keys the caller trusts.
type KeySource interface {
	LookupKey(ctx context.Context, keyID string) (JWK, error)
}

// Errors a KeySource returns.
var (
	ErrUnknownKey = errors.New("unknown_key")
	ErrInvalidKey = errors.New("invalid_key")
)

// LookupKey finds the one key with this kid; two keys under one kid make the set ambiguous (ErrInvalidKey).
func (s JWKS) LookupKey(_ context.Context, keyID string) (JWK, error) {
	var found []JWK
	for _, k := range s.Keys {
		if k.Kid == keyID {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 0:
		return JWK{}, ErrUnknownKey
	case 1:
		return found[0], nil
	default:
		return JWK{}, ErrInvalidKey
	}
}

var rfc3339Pattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$`)

// PublicKey returns the raw 32-byte key after checking the JWK strictly (OKP, Ed25519, alg EdDSA/Ed25519 if given,
// use sig if given).
func (k JWK) PublicKey() (ed25519.PublicKey, error) {
	if k.Kty != "OKP" || k.Crv != "Ed25519" {
		return nil, fmt.Errorf("%w: not an OKP Ed25519 key", ErrInvalidKey)
	}
	if k.Alg != "" && k.Alg != "EdDSA" && k.Alg != "Ed25519" {
		return nil, fmt.Errorf("%w: alg %q", ErrInvalidKey, k.Alg)
	}
	if k.Use != "" && k.Use != "sig" {
		return nil, fmt.Errorf("%w: use %q", ErrInvalidKey, k.Use)
	}
	for _, t := range []string{k.ValidFrom, k.ValidUntil} {
		if t != "" && !rfc3339Pattern.MatchString(t) {
			return nil, fmt.Errorf("%w: validity window", ErrInvalidKey)
		}
	}
	raw, ok := decodeBase64URLStrict(k.X)
	if !ok || len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: x is not the base64url of 32 bytes", ErrInvalidKey)
	}
	return ed25519.PublicKey(raw), nil
}

// Thumbprint is the RFC 7638 thumbprint (base64url SHA-256 of the canonical {crv,kty,x}).
func (k JWK) Thumbprint() (string, error) {
	if _, err := k.PublicKey(); err != nil {
		return "", err
	}
	b, err := Canonicalize(map[string]any{"crv": k.Crv, "kty": k.Kty, "x": k.X})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return encodeBase64URL(sum[:]), nil
}

// PublicJWK is the public JWK of a raw Ed25519 key.
func PublicJWK(pub ed25519.PublicKey, kid string) JWK {
	return JWK{Kty: "OKP", Crv: "Ed25519", X: encodeBase64URL(pub), Kid: kid}
}

// JWKSCache fetches the issuer's JWKS once and serves every lookup from that copy. A key id absent from the cached
// set is unknown: the cache never refetches because a document names a new key (an attacker could otherwise make a
// verifier fetch at will); call Refresh deliberately after a published rotation. It fetches URL and nothing else: a
// redirect is an error, never followed (unless HTTPClient is your own client that follows it).
type JWKSCache struct {
	// URL is the JWKS URL fetched (`&aar.JWKSCache{URL: ...}` names it exactly).
	URL        string
	HTTPClient *http.Client

	mu   sync.Mutex
	jwks *JWKS
	// refused is why NewJWKSCache could not resolve its URL: every fetch answers it (fail closed).
	refused error
}

// NewJWKSCache caches the JWKS named by url: a JWKS URL (its path ends in `/jwks.json`, e.g.
// `https://aar.example/.well-known/jwks.json`) or an issuer base URL (`https://aar.example`, whose JWKS is
// `<issuer>/.well-known/jwks.json`), told apart as ResolveJWKSURL does, the same rule as the TypeScript and Python
// SDKs. A URL ResolveJWKSURL refuses is never fetched: every lookup returns that error (NewJWKSCacheAt returns it at
// once).
func NewJWKSCache(url string) *JWKSCache {
	resolved, err := ResolveJWKSURL(JWKSLocation{URL: url})
	if err != nil {
		return &JWKSCache{URL: url, refused: err}
	}
	return &JWKSCache{URL: resolved}
}

// NewJWKSCacheAt caches the JWKS at location (exactly one of its fields set), or says why the location is refused.
func NewJWKSCacheAt(location JWKSLocation) (*JWKSCache, error) {
	resolved, err := ResolveJWKSURL(location)
	if err != nil {
		return nil, err
	}
	return &JWKSCache{URL: resolved}, nil
}

// Get returns the cached set, fetching it on first use.
func (c *JWKSCache) Get(ctx context.Context) (JWKS, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.jwks != nil {
		return *c.jwks, nil
	}
	jwks, err := c.fetch(ctx)
	if err != nil {
		return JWKS{}, err
	}
	c.jwks = &jwks
	return jwks, nil
}

// Refresh fetches the set again and replaces the cached copy.
func (c *JWKSCache) Refresh(ctx context.Context) (JWKS, error) {
	jwks, err := c.fetch(ctx)
	if err != nil {
		return JWKS{}, err
	}
	c.mu.Lock()
	c.jwks = &jwks
	c.mu.Unlock()
	return jwks, nil
}

// LookupKey implements KeySource.
func (c *JWKSCache) LookupKey(ctx context.Context, keyID string) (JWK, error) {
	jwks, err := c.Get(ctx)
	if err != nil {
		return JWK{}, err
	}
	return jwks.LookupKey(ctx, keyID)
}

// noRedirects is the default client: keys come only from the URL the caller named, so a redirect is answered as
// the error it is.
var noRedirects = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func (c *JWKSCache) fetch(ctx context.Context) (JWKS, error) {
	if c.refused != nil {
		return JWKS{}, c.refused
	}
	client := c.HTTPClient
	if client == nil {
		client = noRedirects
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL, nil)
	if err != nil {
		return JWKS{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return JWKS{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return JWKS{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return JWKS{}, fmt.Errorf("aar: jwks fetch %s: http %d", c.URL, resp.StatusCode)
	}
	var jwks JWKS
	if err := json.Unmarshal(body, &jwks); err != nil {
		return JWKS{}, fmt.Errorf("aar: jwks: %w", err)
	}
	return jwks, nil
}
