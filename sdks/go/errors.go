package aar

import (
	"encoding/json"
	"fmt"
	"time"
)

// FieldError names one invalid field of a request (RFC 9457 `errors` member).
type FieldError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// APIError is a problem+json answer (CONTRACT section 7). Use errors.As to reach it:
//
//	var apiErr *aar.APIError
//	if errors.As(err, &apiErr) && apiErr.Code == "scope_not_subset" { ... }
type APIError struct {
	Status    int          `json:"status"`
	Code      string       `json:"code"`
	Type      string       `json:"type"`
	Title     string       `json:"title"`
	Detail    string       `json:"detail"`
	Errors    []FieldError `json:"errors,omitempty"`
	RequestID string       `json:"request_id,omitempty"`
	// RetryAfter is the server's Retry-After, when it sent one (429, 503).
	RetryAfter time.Duration `json:"-"`
	// Body is the raw answer, for anything the fields above do not carry.
	Body []byte `json:"-"`
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("aar: http %d", e.Status)
	if e.Code != "" {
		msg += " " + e.Code
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	} else if e.Title != "" {
		msg += ": " + e.Title
	}
	for _, f := range e.Errors {
		msg += fmt.Sprintf(" [%s: %s]", f.Path, f.Message)
	}
	if e.RequestID != "" {
		msg += " (request " + e.RequestID + ")"
	}
	return msg
}

func parseAPIError(status int, body []byte, requestID string, retryAfter time.Duration) *APIError {
	e := &APIError{}
	_ = json.Unmarshal(body, e)
	e.Status = status
	if e.RequestID == "" {
		e.RequestID = requestID
	}
	e.RetryAfter = retryAfter
	e.Body = body
	return e
}
