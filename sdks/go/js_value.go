// ECMAScript semantics over generic JSON values, so the decide port reads hostile snapshots exactly as core's
// TypeScript does: an absent member is `undefined` (distinct from JSON null), equality is `===`, numbers are doubles
// and "integers" are Number.isSafeInteger.

package aar

import (
	"math"
	"strings"
	"unicode/utf16"
)

// jsUndefined stands for ECMAScript's `undefined`: a member that is absent.
type jsUndefined struct{}

var undefined any = jsUndefined{}

func isUndefined(v any) bool { _, ok := v.(jsUndefined); return ok }

// get reads an own member of a JSON object; undefined for anything else.
func get(v any, key string) any {
	if m, ok := v.(map[string]any); ok {
		if x, ok := m[key]; ok {
			return x
		}
	}
	return undefined
}

func isRecord(v any) bool { _, ok := v.(map[string]any); return ok }

func isNonEmptyString(v any) bool { s, ok := v.(string); return ok && s != "" }

func isStringArray(v any) bool {
	a, ok := v.([]any)
	if !ok {
		return false
	}
	for _, x := range a {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return true
}

func stringsOf(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, x := range a {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// strictEqual is `===` on JSON values: objects and arrays are never equal (JSON.parse shares no references).
func strictEqual(a, b any) bool {
	switch x := a.(type) {
	case jsUndefined:
		return isUndefined(b)
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	}
	return false
}

const maxSafeInteger = 9007199254740991

func isSafeInteger(v any) bool {
	f, ok := v.(float64)
	return ok && f == math.Trunc(f) && math.Abs(f) <= maxSafeInteger
}

func isNonNegativeSafeInteger(v any) bool {
	return isSafeInteger(v) && v.(float64) >= 0
}

func includesString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// arrayIncludes is Array.prototype.includes for a string needle (SameValueZero).
func arrayIncludes(v any, needle string) bool {
	a, _ := v.([]any)
	for _, x := range a {
		if s, ok := x.(string); ok && s == needle {
			return true
		}
	}
	return false
}

// jsonStringify mirrors JSON.stringify for diagnostics; object members come in UTF-16 order (JavaScript would keep
// insertion order, which a Go map does not hold: details of hostile object values may differ in member order).
func jsonStringify(v any) (string, bool) {
	switch v.(type) {
	case jsUndefined:
		return "", false
	}
	b, err := Canonicalize(v)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// jsString is String(v) for the few places core interpolates a value into a message.
func jsString(v any) string {
	switch x := v.(type) {
	case jsUndefined:
		return "undefined"
	case nil:
		return "null"
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		s, _ := FormatESNumber(x)
		return s
	case []any:
		parts := make([]string, len(x))
		for i, item := range x {
			if item != nil && !isUndefined(item) {
				parts[i] = jsString(item)
			}
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}

// quote is core's detail quoting: backticks around the value, bounded to 80 UTF-16 units.
func quote(v any) string {
	text, ok := v.(string)
	if !ok {
		if s, ok2 := jsonStringify(v); ok2 {
			text = s
		} else {
			text = jsString(v)
		}
	}
	units := utf16.Encode([]rune(text))
	if len(units) > 80 {
		text = string(utf16.Decode(units[:77])) + "..."
	}
	return "`" + text + "`"
}

func esNumber(f float64) string {
	s, _ := FormatESNumber(f)
	return s
}
