// RFC 8785 (JSON Canonicalization Scheme), written by hand: the Go standard library has no JCS, and the one third-
// party module is not allowed here (standard library only). Keys sorted by UTF-16 code units, strings escaped as
// ECMAScript's JSON.stringify does, numbers in ECMAScript's Number.prototype.toString form (FormatESNumber).

package aar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonicalize returns the RFC 8785 bytes of v. v may be a generic JSON value (ParseJSON's result) or anything
// encoding/json marshals; NaN, infinities and invalid UTF-8 are refused.
func Canonicalize(v any) ([]byte, error) {
	value, err := ToJSONValue(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := writeCanonical(&b, value, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// CanonicalizeJSON parses a JSON text strictly and returns its RFC 8785 bytes.
func CanonicalizeJSON(data []byte) ([]byte, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return Canonicalize(v)
}

func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func writeCanonical(b *bytes.Buffer, v any, depth int) error {
	if depth > MaxJSONDepth {
		return errors.New("jcs: nesting too deep")
	}
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case float64:
		s, err := FormatESNumber(t)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case string:
		return writeJSONString(b, t)
	case []any:
		b.WriteByte('[')
		for i, item := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonical(b, item, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sortUTF16(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSONString(b, k); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := writeCanonical(b, t[k], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("jcs: unsupported value of type %T", v)
	}
	return nil
}

// sortUTF16 orders strings by their UTF-16 code units (RFC 8785 section 3.2.3), which differs from Go's byte order
// for characters beyond the BMP compared with U+E000..U+FFFF.
func sortUTF16(keys []string) {
	sort.Slice(keys, func(i, j int) bool { return compareUTF16(keys[i], keys[j]) < 0 })
}

func compareUTF16(a, b string) int {
	ua := utf16.Encode([]rune(a))
	ub := utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			if ua[i] < ub[i] {
				return -1
			}
			return 1
		}
	}
	return len(ua) - len(ub)
}

func writeJSONString(b *bytes.Buffer, s string) error {
	if !utf8.ValidString(s) {
		return errors.New("jcs: string is not valid utf-8")
	}
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return nil
}

// FormatESNumber formats f exactly as ECMAScript's Number.prototype.toString (ECMA-262 Number::toString, radix 10):
// the shortest digits that round-trip, plain notation for exponents in [-7, 21), `e+`/`e-` notation otherwise, and
// -0 as "0". NaN and infinities have no JSON form and are refused.
func FormatESNumber(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", errors.New("jcs: number is not finite")
	}
	if f == 0 {
		return "0", nil
	}
	sign := ""
	if f < 0 {
		sign = "-"
		f = -f
	}
	// 'e' with precision -1: the shortest decimal that round-trips, as d.ddddde±XX.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mantissa, expText, _ := strings.Cut(e, "e")
	exp, err := strconv.Atoi(expText)
	if err != nil {
		return "", err
	}
	digits := strings.Replace(mantissa, ".", "", 1)
	k := len(digits)
	n := exp + 1 // the decimal point sits after n digits
	var out string
	switch {
	case k <= n && n <= 21:
		out = digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		out = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		out = "0." + strings.Repeat("0", -n) + digits
	default:
		expSign := "+"
		if n-1 < 0 {
			expSign = "-"
		}
		abs := n - 1
		if abs < 0 {
			abs = -abs
		}
		if k == 1 {
			out = digits + "e" + expSign + strconv.Itoa(abs)
		} else {
			out = digits[:1] + "." + digits[1:] + "e" + expSign + strconv.Itoa(abs)
		}
	}
	return sign + out, nil
}
