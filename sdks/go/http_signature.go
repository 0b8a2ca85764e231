// RFC 9421 HTTP Message Signatures with Ed25519, the signer of agent requests (CONTRACT section 7), written by hand:
// the Go standard library has none and this module takes no third-party code. The covered components of the agent
// profile are `@method`, `@target-uri` and `content-digest` (RFC 9530), with `created`, `nonce`, `keyid` and
// `alg="ed25519"`. Field values with CR, LF or other controls are refused (they could forge lines of the base).

package aar

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// AgentRequestComponents are the components every agent request signature covers.
var AgentRequestComponents = []string{"@method", "@target-uri", "content-digest"}

// SignatureParam is one signature parameter, serialized in the order given: an int64 or a string value.
type SignatureParam struct {
	Name  string
	Value any
}

// SignableRequest is what a signature base is built from.
type SignableRequest struct {
	Method string
	// URL is the absolute target URI.
	URL     string
	Headers http.Header
}

var (
	fieldNamePattern = regexp.MustCompile("^[a-z0-9!#$%&'*+\\-.^_`|~]+$")
	methodPattern    = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+\\-.^_`|~]+$")
	safeValuePattern = regexp.MustCompile(`^[\t\x20-\x7e]*$`)
	sfKeyPattern     = regexp.MustCompile(`^[a-z*][a-z0-9_\-.*]*$`)
)

// ContentDigest is the RFC 9530 Content-Digest field of body: `sha-256=:<base64>:`.
func ContentDigest(body []byte) string {
	sum := sha256.Sum256(body)
	return "sha-256=:" + encodeBase64(sum[:]) + ":"
}

func sfString(s string) (string, error) {
	if !safeValuePattern.MatchString(s) || strings.Contains(s, "\t") {
		return "", fmt.Errorf("aar: %q is not a structured-field string", s)
	}
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`, nil
}

// SerializeSignatureParams is the `@signature-params` value: `("c1" "c2");p1=v1;...`.
func SerializeSignatureParams(components []string, params []SignatureParam) (string, error) {
	var b strings.Builder
	b.WriteByte('(')
	for i, c := range components {
		if i > 0 {
			b.WriteByte(' ')
		}
		s, err := sfString(c)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	b.WriteByte(')')
	for _, p := range params {
		if !sfKeyPattern.MatchString(p.Name) {
			return "", fmt.Errorf("aar: %q is not a parameter name", p.Name)
		}
		b.WriteString(";" + p.Name + "=")
		switch v := p.Value.(type) {
		case int64:
			if v < 0 || v > 999999999999999 {
				return "", fmt.Errorf("aar: parameter %s out of range", p.Name)
			}
			b.WriteString(strconv.FormatInt(v, 10))
		case int:
			if v < 0 || v > 999999999999999 {
				return "", fmt.Errorf("aar: parameter %s out of range", p.Name)
			}
			b.WriteString(strconv.Itoa(v))
		case string:
			s, err := sfString(v)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		default:
			return "", fmt.Errorf("aar: parameter %s has an unsupported type", p.Name)
		}
	}
	return b.String(), nil
}

// normalizeTargetURI applies the WHATWG spelling both sides use for http(s) URLs: lowercase scheme and host,
// default port dropped, empty path as `/`, fragment removed. Userinfo is refused.
func normalizeTargetURI(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("aar: target uri must be http or https")
	}
	if u.User != nil {
		return nil, fmt.Errorf("aar: target uri must not carry userinfo")
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" && u.RawPath == "" {
		u.Path = "/"
	}
	return u, nil
}

func componentValue(name string, r SignableRequest) (string, error) {
	if strings.HasPrefix(name, "@") {
		if name == "@method" {
			if !methodPattern.MatchString(r.Method) {
				return "", fmt.Errorf("aar: invalid method")
			}
			return r.Method, nil
		}
		u, err := normalizeTargetURI(r.URL)
		if err != nil {
			return "", err
		}
		switch name {
		case "@target-uri":
			return u.String(), nil
		case "@authority":
			return u.Host, nil
		case "@scheme":
			return u.Scheme, nil
		case "@path":
			return u.EscapedPath(), nil
		case "@query":
			return "?" + u.RawQuery, nil
		}
		return "", fmt.Errorf("aar: unsupported component %s", name)
	}
	if !fieldNamePattern.MatchString(name) {
		return "", fmt.Errorf("aar: unsupported component %s", name)
	}
	lines := r.Headers.Values(name)
	if len(lines) == 0 {
		return "", fmt.Errorf("aar: component %s is absent", name)
	}
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = strings.Trim(l, " \t")
	}
	value := strings.Join(parts, ", ")
	if !safeValuePattern.MatchString(value) {
		return "", fmt.Errorf("aar: component %s has an unsafe value", name)
	}
	return value, nil
}

// SignatureBase builds the RFC 9421 section 2.5 signature base and the `@signature-params` value.
func SignatureBase(components []string, r SignableRequest, params []SignatureParam) (base, signatureParams string, err error) {
	seen := map[string]bool{}
	var b strings.Builder
	for _, name := range components {
		if seen[name] {
			return "", "", fmt.Errorf("aar: component %s repeated", name)
		}
		seen[name] = true
		v, err := componentValue(name, r)
		if err != nil {
			return "", "", err
		}
		q, err := sfString(name)
		if err != nil {
			return "", "", err
		}
		b.WriteString(q + ": " + v + "\n")
	}
	sp, err := SerializeSignatureParams(components, params)
	if err != nil {
		return "", "", err
	}
	b.WriteString(`"@signature-params": ` + sp)
	return b.String(), sp, nil
}

// RequestSigner signs agent requests with the agent's Ed25519 key; KeyID is the agent's entity id.
type RequestSigner struct {
	KeyID      string
	PrivateKey ed25519.PrivateKey
	// Label of the signature (default `sig1`; the server accepts any).
	Label string
	// Now and Nonce default to the clock and 128 random bits; tests fix them.
	Now   func() time.Time
	Nonce func() string
	// TargetBaseURL, when set, replaces the scheme and authority of the request URL in `@target-uri`: the service
	// rebuilds the URI from its configured public URL (AAR_PUBLIC_URL), never from Host, so an agent behind a proxy
	// signs for the public name.
	TargetBaseURL string
}

// SignedHeaders are the fields to add to a signed request.
type SignedHeaders struct {
	ContentDigest  string
	SignatureInput string
	Signature      string
}

// Sign signs method + target URL + body with the agent profile.
func (s *RequestSigner) Sign(method, targetURL string, body []byte) (SignedHeaders, error) {
	if s.KeyID == "" || len(s.PrivateKey) != ed25519.PrivateKeySize {
		return SignedHeaders{}, fmt.Errorf("aar: signer needs a key id and an ed25519 private key")
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	nonce := s.Nonce
	if nonce == nil {
		nonce = func() string {
			b := make([]byte, 16)
			_, _ = rand.Read(b)
			return encodeBase64URL(b)
		}
	}
	label := s.Label
	if label == "" {
		label = "sig1"
	}
	if s.TargetBaseURL != "" {
		u, err := url.Parse(targetURL)
		if err != nil {
			return SignedHeaders{}, err
		}
		targetURL = strings.TrimRight(s.TargetBaseURL, "/") + u.RequestURI()
	}
	digest := ContentDigest(body)
	params := []SignatureParam{
		{"created", now().Unix()}, {"nonce", nonce()}, {"keyid", s.KeyID}, {"alg", "ed25519"},
	}
	base, sp, err := SignatureBase(AgentRequestComponents, SignableRequest{
		Method: method, URL: targetURL, Headers: http.Header{"Content-Digest": {digest}},
	}, params)
	if err != nil {
		return SignedHeaders{}, err
	}
	sig := ed25519.Sign(s.PrivateKey, []byte(base))
	return SignedHeaders{
		ContentDigest:  digest,
		SignatureInput: label + "=" + sp,
		Signature:      label + "=:" + encodeBase64(sig) + ":",
	}, nil
}

// SignHTTPRequest signs req (whose body is body) and sets Content-Digest, Signature-Input and Signature.
func (s *RequestSigner) SignHTTPRequest(req *http.Request, body []byte) error {
	h, err := s.Sign(req.Method, req.URL.String(), body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Digest", h.ContentDigest)
	req.Header.Set("Signature-Input", h.SignatureInput)
	req.Header.Set("Signature", h.Signature)
	return nil
}
