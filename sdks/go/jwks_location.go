package aar

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// JWKSLocation names where a key source fetches the issuer's JWKS: set exactly one field.
//   - JWKSURL: that URL, as is.
//   - IssuerURL: the issuer's base URL (a path prefix allowed); the JWKS is `<issuer>/.well-known/jwks.json`
//     (trailing `/` ignored), where the service publishes it (`AAR_ISSUER_URL`).
//   - URL: a JWKS URL when its path ends in `/jwks.json`, otherwise an issuer URL.
//
// The same rule as the TypeScript (`resolveJwksUrl`) and Python (`resolve_jwks_url`) SDKs, pinned by
// vectors/sdk/jwks-locations.json in all three.
type JWKSLocation struct {
	URL       string
	JWKSURL   string
	IssuerURL string
}

// ErrInvalidJWKSLocation is wrapped by every refusal of ResolveJWKSURL.
var ErrInvalidJWKSLocation = errors.New("aar: invalid jwks location")

const wellKnownJWKS = "/.well-known/jwks.json"

func refuseLocation(what, why string) error {
	return fmt.Errorf("%w: the %s %s", ErrInvalidJWKSLocation, what, why)
}

// checkedURL parses an absolute http(s) URL without credentials or fragment.
func checkedURL(raw, what string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return nil, refuseLocation(what, "must be an absolute http(s) url")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return nil, refuseLocation(what, "must be an absolute http or https url")
	}
	if u.User != nil {
		return nil, refuseLocation(what, "must not carry credentials")
	}
	if strings.Contains(raw, "#") {
		return nil, refuseLocation(what, "must not have a fragment")
	}
	return u, nil
}

// ResolveJWKSURL is the JWKS URL a key source fetches for location. Only http(s), no credentials, no fragment, and
// an issuer URL has no query (where would the JWKS path go?).
func ResolveJWKSURL(location JWKSLocation) (string, error) {
	named := 0
	for _, v := range []string{location.URL, location.JWKSURL, location.IssuerURL} {
		if v != "" {
			named++
		}
	}
	if named != 1 {
		return "", refuseLocation("key source", "needs exactly one of URL, JWKSURL or IssuerURL")
	}
	if location.JWKSURL != "" {
		if _, err := checkedURL(location.JWKSURL, "jwks url"); err != nil {
			return "", err
		}
		return location.JWKSURL, nil
	}
	issuer := location.IssuerURL
	if location.URL != "" {
		u, err := checkedURL(location.URL, "key source url")
		if err != nil {
			return "", err
		}
		if strings.HasSuffix(u.Path, "/jwks.json") {
			return location.URL, nil
		}
		issuer = location.URL
	}
	u, err := checkedURL(issuer, "issuer url")
	if err != nil {
		return "", err
	}
	if strings.Contains(issuer, "?") {
		return "", refuseLocation("issuer url", "must not have a query")
	}
	u.Path = strings.TrimRight(u.Path, "/") + wellKnownJWKS
	u.RawPath = ""
	return u.String(), nil
}
