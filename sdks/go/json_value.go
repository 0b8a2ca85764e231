// A strict JSON parser, written by hand because encoding/json silently replaces invalid UTF-8 and lone surrogate
// escapes with U+FFFD and keeps the last of duplicate keys: RFC 8785 bytes of such input would differ from what the
// signer saw. Attacker assumption: the text is hostile (deep nesting, duplicate keys, `\ud800`, 1e400, a BOM).
//
// Values are nil, bool, float64 (JSON numbers as ECMAScript reads them), string, []any and map[string]any.

package aar

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxJSONDepth bounds nesting; deeper documents are refused rather than recursed into.
const MaxJSONDepth = 512

// ParseJSON parses one JSON text strictly: valid UTF-8 without a BOM, no duplicate object keys, no lone surrogates,
// finite numbers only, nothing but whitespace after the value.
func ParseJSON(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("json: invalid utf-8")
	}
	p := &jsonParser{data: data}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.errorf("trailing data")
	}
	return v, nil
}

type jsonParser struct {
	data []byte
	pos  int
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("json: %s at offset %d", fmt.Sprintf(format, args...), p.pos)
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > MaxJSONDepth {
		return nil, p.errorf("nesting deeper than %d", MaxJSONDepth)
	}
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.errorf("unexpected character %q", c)
	}
}

func (p *jsonParser) literal(word string, v any) (any, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.errorf("invalid literal")
	}
	p.pos += len(word)
	return v, nil
}

func (p *jsonParser) object(depth int) (any, error) {
	p.pos++
	out := map[string]any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return out, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errorf("expected a member name")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if _, dup := out[key]; dup {
			return nil, p.errorf("duplicate key %q", key)
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf("expected ':'")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out[key] = v
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end")
		}
		if p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.data[p.pos] == '}' {
			p.pos++
			return out, nil
		}
		return nil, p.errorf("expected ',' or '}'")
	}
}

func (p *jsonParser) array(depth int) (any, error) {
	p.pos++
	out := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return out, nil
	}
	for {
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end")
		}
		if p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.data[p.pos] == ']' {
			p.pos++
			return out, nil
		}
		return nil, p.errorf("expected ',' or ']'")
	}
}

func (p *jsonParser) number() (any, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	intStart := p.pos
	if n := digits(); n == 0 {
		return nil, p.errorf("invalid number")
	} else if n > 1 && p.data[intStart] == '0' {
		return nil, p.errorf("leading zero")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errorf("invalid fraction")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errorf("invalid exponent")
		}
	}
	f, err := strconv.ParseFloat(string(p.data[start:p.pos]), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, p.errorf("number out of range")
	}
	return f, nil
}

func (p *jsonParser) str() (string, error) {
	p.pos++ // opening quote
	var units []uint16
	buf := make([]byte, 0, 16)
	flushUnits := func() error {
		if len(units) == 0 {
			return nil
		}
		for i := 0; i < len(units); i++ {
			u := units[i]
			switch {
			case u >= 0xD800 && u < 0xDC00:
				if i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] < 0xE000 {
					buf = utf8.AppendRune(buf, utf16.DecodeRune(rune(u), rune(units[i+1])))
					i++
					continue
				}
				return p.errorf("lone surrogate")
			case u >= 0xDC00 && u < 0xE000:
				return p.errorf("lone surrogate")
			default:
				buf = utf8.AppendRune(buf, rune(u))
			}
		}
		units = units[:0]
		return nil
	}
	for {
		if p.pos >= len(p.data) {
			return "", p.errorf("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			if err := flushUnits(); err != nil {
				return "", err
			}
			p.pos++
			return string(buf), nil
		case c < 0x20:
			return "", p.errorf("control character in string")
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				return "", p.errorf("unterminated escape")
			}
			e := p.data[p.pos+1]
			if e == 'u' {
				if p.pos+6 > len(p.data) {
					return "", p.errorf("short unicode escape")
				}
				n, err := strconv.ParseUint(string(p.data[p.pos+2:p.pos+6]), 16, 16)
				if err != nil {
					return "", p.errorf("invalid unicode escape")
				}
				units = append(units, uint16(n))
				p.pos += 6
				continue
			}
			if err := flushUnits(); err != nil {
				return "", err
			}
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			default:
				return "", p.errorf("invalid escape")
			}
			p.pos += 2
		default:
			if err := flushUnits(); err != nil {
				return "", err
			}
			buf = append(buf, c)
			p.pos++
		}
	}
}

// ToJSONValue converts any Go value encoding/json can marshal into the generic form ParseJSON returns.
func ToJSONValue(v any) (any, error) {
	switch v.(type) {
	case nil, bool, float64, string, []any, map[string]any:
		if ok := isGenericJSON(v, 0); ok {
			return v, nil
		}
	}
	raw, err := marshalJSON(v)
	if err != nil {
		return nil, err
	}
	return ParseJSON(raw)
}

func isGenericJSON(v any, depth int) bool {
	if depth > MaxJSONDepth {
		return false
	}
	switch t := v.(type) {
	case nil, bool, string:
		return true
	case float64:
		return !math.IsNaN(t) && !math.IsInf(t, 0)
	case []any:
		for _, x := range t {
			if !isGenericJSON(x, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, x := range t {
			if !isGenericJSON(x, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// jsonUnmarshalStrict decodes canonical bytes into a struct (used on values already parsed strictly).
func jsonUnmarshalStrict(data []byte, v any) error {
	return json.Unmarshal(data, v)
}
