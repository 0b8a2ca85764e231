package aar

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Object is a JSON object as the service answers it.
type Object = map[string]any

// Client calls the service's HTTP API. Safe for concurrent use once configured.
type Client struct {
	BaseURL    string
	Token      string
	HTTPClient *http.Client
	// MaxRetries after the first attempt, on 429, 503 and network errors (default 4).
	MaxRetries int
	// MinBackoff and MaxBackoff bound the exponential backoff with full jitter (defaults 200 ms and 10 s).
	MinBackoff time.Duration
	MaxBackoff time.Duration
	// Signer, when set, signs POST /v1/runtime/authorize (RFC 9421) with the agent's key.
	Signer    *RequestSigner
	UserAgent string
	// MaxResponseBytes bounds a response body (default 16 MiB).
	MaxResponseBytes int64
}

// NewClient returns a client of the service at baseURL (`https://aar.example`) authenticating with token.
func NewClient(baseURL, token string) *Client {
	return &Client{
		BaseURL:    strings.TrimRight(baseURL, "/"),
		Token:      token,
		HTTPClient: &http.Client{Timeout: 30 * time.Second},
		MaxRetries: 4,
		MinBackoff: 200 * time.Millisecond,
		MaxBackoff: 10 * time.Second,
		UserAgent:  "aar-go/" + SDKVersion,
	}
}

// SDKVersion is this module's version.
const SDKVersion = "1.0.0"

// RequestOption changes one call.
type RequestOption func(*requestOptions)

type requestOptions struct {
	idempotencyKey string
	headers        http.Header
}

// WithIdempotencyKey sets the Idempotency-Key of a POST instead of a generated one (to retry a logical request
// across process restarts, say).
func WithIdempotencyKey(key string) RequestOption {
	return func(o *requestOptions) { o.idempotencyKey = key }
}

// WithHeader adds a header to one call.
func WithHeader(name, value string) RequestOption {
	return func(o *requestOptions) {
		if o.headers == nil {
			o.headers = http.Header{}
		}
		o.headers.Add(name, value)
	}
}

// NewIdempotencyKey returns 128 random bits, hex.
func NewIdempotencyKey() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return hex.EncodeToString(b)
}

// Do sends one logical request and decodes a 2xx JSON answer into out (when not nil). A POST gets one
// Idempotency-Key, reused by every retry, so a retried POST is never applied twice. Retries: 429 (after
// Retry-After), 503 and network errors, with exponential backoff and full jitter; every wait honours ctx.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body any, out any, opts ...RequestOption) error {
	o := requestOptions{}
	for _, opt := range opts {
		opt(&o)
	}
	var payload []byte
	if body != nil {
		var err error
		if raw, ok := body.(json.RawMessage); ok {
			payload = raw
		} else if payload, err = marshalJSON(body); err != nil {
			return fmt.Errorf("aar: encode request: %w", err)
		}
	}
	if method == http.MethodPost && o.idempotencyKey == "" {
		o.idempotencyKey = NewIdempotencyKey()
	}
	target := c.BaseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	for attempt := 0; ; attempt++ {
		status, respBody, header, err := c.once(ctx, method, target, path, payload, body != nil, o)
		if err == nil && status >= 200 && status < 300 {
			if out == nil || len(respBody) == 0 {
				return nil
			}
			if err := json.Unmarshal(respBody, out); err != nil {
				return fmt.Errorf("aar: decode %s %s: %w", method, path, err)
			}
			return nil
		}
		var retryAfter time.Duration
		if err == nil {
			retryAfter = parseRetryAfter(header.Get("Retry-After"))
		}
		retryable := err != nil || status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if !retryable || attempt >= c.MaxRetries {
			if err != nil {
				return fmt.Errorf("aar: %s %s: %w", method, path, err)
			}
			return parseAPIError(status, respBody, header.Get("x-request-id"), retryAfter)
		}
		wait := c.backoff(attempt)
		if retryAfter > wait {
			wait = retryAfter
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}

func (c *Client) once(ctx context.Context, method, target, path string, payload []byte, hasBody bool, o requestOptions) (int, []byte, http.Header, error) {
	var reader io.Reader
	if hasBody {
		reader = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Accept", "application/json")
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	if o.idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", o.idempotencyKey)
	}
	for k, vs := range o.headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	// Every attempt is signed afresh: a retry must carry a new nonce and `created`, or the server refuses it as
	// replayed; the idempotency key makes the retries one logical request.
	if c.Signer != nil && method == http.MethodPost && path == "/v1/runtime/authorize" {
		if err := c.Signer.SignHTTPRequest(req, payload); err != nil {
			return 0, nil, nil, err
		}
	}
	client := c.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = 16 << 20
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.StatusCode, body, resp.Header, nil
}

// backoff is full jitter: a uniform wait in [0, min(MaxBackoff, MinBackoff * 2^attempt)], at least MinBackoff/2.
func (c *Client) backoff(attempt int) time.Duration {
	minB, maxB := c.MinBackoff, c.MaxBackoff
	if minB <= 0 {
		minB = 200 * time.Millisecond
	}
	if maxB < minB {
		maxB = minB
	}
	ceiling := minB
	for i := 0; i < attempt && ceiling < maxB; i++ {
		ceiling *= 2
	}
	if ceiling > maxB {
		ceiling = maxB
	}
	n, err := rand.Int(rand.Reader, big.NewInt(int64(ceiling)+1))
	if err != nil {
		return ceiling
	}
	wait := time.Duration(n.Int64())
	if wait < minB/2 {
		wait = minB / 2
	}
	return wait
}

// parseRetryAfter reads delay-seconds or an HTTP-date; zero when absent or malformed. Capped at 5 minutes.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = time.Until(t)
	}
	if d < 0 {
		return 0
	}
	if d > 5*time.Minute {
		return 5 * time.Minute
	}
	return d
}

// ErrNoMorePages ends an iteration.
var ErrNoMorePages = errors.New("aar: no more pages")

// Page is one page of a list: its items and the cursor of the next page (empty when this is the last).
type Page struct {
	Items      []Object `json:"items"`
	NextCursor *string  `json:"next_cursor"`
	// HasMore is false when no further page is there yet (the events feed says so; lists omit it).
	HasMore *bool `json:"has_more,omitempty"`
}

// Pager walks a list or the events feed page by page.
type Pager struct {
	client *Client
	path   string
	query  url.Values
	param  string // "cursor" for lists, "after" for the events feed
	next   *string
	done   bool
}

func (c *Client) pager(path string, query url.Values, param string) *Pager {
	q := url.Values{}
	for k, v := range query {
		q[k] = append([]string(nil), v...)
	}
	return &Pager{client: c, path: path, query: q, param: param}
}

// Next fetches the next page; ErrNoMorePages after the last.
func (p *Pager) Next(ctx context.Context) (Page, error) {
	if p.done {
		return Page{}, ErrNoMorePages
	}
	if p.next != nil {
		p.query.Set(p.param, *p.next)
	}
	var page Page
	if err := p.client.Do(ctx, http.MethodGet, p.path, p.query, nil, &page); err != nil {
		return Page{}, err
	}
	// a list that answers the cursor it was given would be walked forever: a service bug must not hang a client
	if p.param == "cursor" && p.next != nil && page.NextCursor != nil && *page.NextCursor == *p.next {
		p.done = true
		return Page{}, fmt.Errorf("aar: %s answered the cursor %q twice", p.path, *p.next)
	}
	// An empty page ends the events feed too (it names a cursor after its last event, to resume from); a list's
	// filtered page may be empty and still name the next one (listings with `min_score`): read on until it is null.
	feedDone := p.param == "after" && len(page.Items) == 0
	if page.NextCursor == nil || *page.NextCursor == "" || feedDone || (page.HasMore != nil && !*page.HasMore) {
		p.done = true
	}
	if page.NextCursor != nil && *page.NextCursor != "" {
		p.next = page.NextCursor
	}
	return page, nil
}

// Cursor is the cursor the next page starts from (for the events feed: where a consumer resumes).
func (p *Pager) Cursor() string {
	if p.next == nil {
		return ""
	}
	return *p.next
}

// All collects every item of every remaining page.
func (p *Pager) All(ctx context.Context) ([]Object, error) {
	var all []Object
	for {
		page, err := p.Next(ctx)
		if errors.Is(err, ErrNoMorePages) {
			return all, nil
		}
		if err != nil {
			return all, err
		}
		all = append(all, page.Items...)
	}
}
