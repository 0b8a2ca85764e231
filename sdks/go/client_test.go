package aar

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

func fastClient(url string) *Client {
	c := NewClient(url, "t0k")
	c.MinBackoff, c.MaxBackoff = time.Millisecond, 5*time.Millisecond
	return c
}

func TestPostRetriesWithOneIdempotencyKey(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		auth = r.Header.Get("Authorization")
		switch len(keys) {
		case 1:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"entity_id":"ns:entity:person:alice"}`))
		}
	}))
	defer srv.Close()
	out, err := fastClient(srv.URL).CreateEntity(context.Background(), Object{"type": "person", "display_name": "A"})
	if err != nil {
		t.Fatal(err)
	}
	if out["entity_id"] != "ns:entity:person:alice" || auth != "Bearer t0k" {
		t.Fatalf("out %v auth %q", out, auth)
	}
	if len(keys) != 3 || keys[0] == "" || keys[0] != keys[1] || keys[1] != keys[2] {
		t.Fatalf("idempotency keys across retries: %q", keys)
	}
	// A second logical POST gets a new key.
	_, _ = fastClient(srv.URL).CreateEntity(context.Background(), Object{})
	if keys[3] == keys[0] {
		t.Fatal("a new logical request reused the key")
	}
}

func TestProblemIsATypedError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("x-request-id", "req-1")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"type":"about:blank","title":"Bad Request","status":400,"detail":"invalid","code":"invalid_request","errors":[{"path":"/display_name","message":"required"}]}`))
	}))
	defer srv.Close()
	_, err := fastClient(srv.URL).CreateEntity(context.Background(), Object{})
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("not an APIError: %v", err)
	}
	if apiErr.Status != 400 || apiErr.Code != "invalid_request" || apiErr.RequestID != "req-1" ||
		len(apiErr.Errors) != 1 || apiErr.Errors[0].Path != "/display_name" {
		t.Fatalf("%+v", apiErr)
	}
}

func TestGiveUpAfterMaxRetriesAndHonourContext(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	c := fastClient(srv.URL)
	c.MaxRetries = 2
	_, err := c.Healthz(context.Background())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 || calls != 3 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
	c.MinBackoff, c.MaxBackoff = time.Hour, time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if _, err := c.Healthz(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	// 4xx other than 429 are not retried.
	calls = 0
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.WriteHeader(http.StatusConflict)
	}))
	defer srv2.Close()
	if _, err := fastClient(srv2.URL).Healthz(context.Background()); err == nil || calls != 1 {
		t.Fatalf("409 retried: %d calls, %v", calls, err)
	}
}

func TestNetworkErrorsAreRetried(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	addr := srv.URL
	srv.Close() // nothing listens: every attempt is a network error
	c := fastClient(addr)
	c.MaxRetries = 2
	if _, err := c.Healthz(context.Background()); err == nil {
		t.Fatal("no error")
	}
}

func TestPagersFollowCursors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/v1/entities" && r.URL.Query().Get("cursor") == "":
			_, _ = w.Write([]byte(`{"items":[{"n":1},{"n":2}],"next_cursor":"c2"}`))
		case r.URL.Path == "/v1/entities" && r.URL.Query().Get("cursor") == "c2" && r.URL.Query().Get("type") == "agent":
			_, _ = w.Write([]byte(`{"items":[{"n":3}],"next_cursor":null}`))
		case r.URL.Path == "/v1/events" && r.URL.Query().Get("after") == "e5":
			_, _ = w.Write([]byte(`{"items":[{"n":6}],"next_cursor":"e6"}`))
		case r.URL.Path == "/v1/events" && r.URL.Query().Get("after") == "e6":
			_, _ = w.Write([]byte(`{"items":[],"next_cursor":"e6"}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	c := fastClient(srv.URL)
	all, err := c.ListEntities(url.Values{"type": {"agent"}}).All(context.Background())
	if err != nil || len(all) != 3 {
		t.Fatalf("%v %v", all, err)
	}
	feed := c.Events("e5", nil)
	events, err := feed.All(context.Background())
	if err != nil || len(events) != 1 || feed.Cursor() != "e6" {
		t.Fatalf("%v %v cursor %q", events, err, feed.Cursor())
	}
}

func TestMoneyFromMinorIsExact(t *testing.T) {
	for _, c := range []struct {
		minor    int64
		currency string
		want     string
	}{{4250, "EUR", "42.50"}, {5, "EUR", "0.05"}, {30000, "JPY", "30000"}, {12345, "BHD", "12.345"}, {1, "BHD", "0.001"}} {
		m, err := MoneyFromMinor(c.minor, c.currency)
		if err != nil || string(m.Amount) != c.want {
			t.Errorf("%d %s: %q %v", c.minor, c.currency, m.Amount, err)
		}
	}
}
