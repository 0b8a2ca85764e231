// The ECMAScript value model the JsonLogic evaluator (jsonlogic.go) runs on, and the coercions json-logic-js 2.0.5
// relies on (ToPrimitive, ToNumber, ToString, parseFloat, the relational and equality operators), written by hand
// because no Go library reproduces JavaScript's coercions and the four runtimes must agree bit for bit.
//
// Values: undefined (jsUndefined), nil (null), bool, float64 (every JS number, NaN and ±Infinity included), string
// (WTF-8: a lone surrogate that `substr` cuts out of a pair is kept as its 3-byte form, so UTF-16 lengths and
// indices stay exact), *jsArray and *jsObject. Arrays and objects are pointers so `===` is reference identity, as
// in JavaScript: a value read twice from the data is the same object, a rule's literal array is a new one each time.

package aar

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

type jsArray struct{ items []any }

type jsObject struct{ members map[string]any }

// jsThrow is a JavaScript exception (a TypeError, an unknown operator): evaluation stops and the caller sees an error.
type jsThrow struct{ message string }

func (e jsThrow) Error() string { return e.message }

func throwJS(message string) { panic(jsThrow{message}) }

// toJSValue converts a generic JSON value (ParseJSON's form) into the evaluator's model; every array and object
// becomes a distinct reference, as JSON.parse makes them.
func toJSValue(v any) any {
	switch x := v.(type) {
	case []any:
		items := make([]any, len(x))
		for i, item := range x {
			items[i] = toJSValue(item)
		}
		return &jsArray{items}
	case map[string]any:
		members := make(map[string]any, len(x))
		for k, item := range x {
			members[k] = toJSValue(item)
		}
		return &jsObject{members}
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return v
}

// fromJSValue converts back to generic values; numbers may be NaN or ±Inf and undefined stays `undefined`.
func fromJSValue(v any) any {
	switch x := v.(type) {
	case *jsArray:
		out := make([]any, len(x.items))
		for i, item := range x.items {
			out[i] = fromJSValue(item)
		}
		return out
	case *jsObject:
		out := make(map[string]any, len(x.members))
		for k, item := range x.members {
			out[k] = fromJSValue(item)
		}
		return out
	}
	return v
}

// jsTruthy is JsonLogic truthiness: JavaScript's, except that an empty array is false.
func jsTruthy(v any) bool {
	switch x := v.(type) {
	case jsUndefined, nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	case *jsArray:
		return len(x.items) > 0
	}
	return true
}

// jsStrictEquals is `===`: NaN is unequal to itself, +0 equals -0, arrays and objects by reference.
func jsStrictEquals(a, b any) bool {
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
	case *jsArray:
		y, ok := b.(*jsArray)
		return ok && x == y
	case *jsObject:
		y, ok := b.(*jsObject)
		return ok && x == y
	}
	return false
}

// jsLooseEquals is `==` (IsLooselyEqual); the profile refuses it, but data re-read as logic may still use it.
func jsLooseEquals(a, b any) bool {
	if sameJSType(a, b) {
		return jsStrictEquals(a, b)
	}
	nullish := func(v any) bool { return v == nil || isUndefined(v) }
	if nullish(a) || nullish(b) {
		return nullish(a) && nullish(b)
	}
	switch x := a.(type) {
	case bool:
		return jsLooseEquals(boolNumber(x), b)
	case float64:
		switch y := b.(type) {
		case string:
			return x == stringToNumber(y)
		case bool:
			return jsLooseEquals(a, boolNumber(y))
		case *jsArray, *jsObject:
			return jsLooseEquals(a, jsToPrimitive(b))
		}
	case string:
		switch y := b.(type) {
		case float64:
			return stringToNumber(x) == y
		case bool:
			return jsLooseEquals(a, boolNumber(y))
		case *jsArray, *jsObject:
			return jsLooseEquals(a, jsToPrimitive(b))
		}
	case *jsArray, *jsObject:
		switch b.(type) {
		case bool:
			return jsLooseEquals(a, boolNumber(b.(bool)))
		case float64, string:
			return jsLooseEquals(jsToPrimitive(a), b)
		}
	}
	return false
}

func sameJSType(a, b any) bool {
	switch a.(type) {
	case jsUndefined:
		return isUndefined(b)
	case nil:
		return b == nil
	case bool:
		_, ok := b.(bool)
		return ok
	case float64:
		_, ok := b.(float64)
		return ok
	case string:
		_, ok := b.(string)
		return ok
	case *jsArray, *jsObject:
		switch b.(type) {
		case *jsArray, *jsObject:
			return true
		}
	}
	return false
}

func boolNumber(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// jsToPrimitive is ToPrimitive for the values JSON can hold: an array is its join(","), an object "[object Object]".
// A JSON object with an own `toString` member has a non-callable toString and a valueOf returning itself, so
// JavaScript throws a TypeError (an own `valueOf` alone is skipped for the inherited toString).
func jsToPrimitive(v any) any {
	switch x := v.(type) {
	case *jsArray:
		return joinArray(x, ",")
	case *jsObject:
		if _, own := x.members["toString"]; own {
			throwJS("TypeError: Cannot convert object to primitive value")
		}
		return "[object Object]"
	}
	return v
}

func joinArray(a *jsArray, sep string) string {
	parts := make([]string, len(a.items))
	for i, item := range a.items {
		if item != nil && !isUndefined(item) {
			parts[i] = jsToString(item)
		}
	}
	return strings.Join(parts, sep)
}

// jsToString is String(v).
func jsToString(v any) string {
	switch x := jsToPrimitive(v).(type) {
	case jsUndefined:
		return "undefined"
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return jsNumberToString(x)
	case string:
		return x
	}
	return ""
}

// jsNumberToString is Number::toString(10): NaN, Infinity, -Infinity, and ECMAScript's shortest round-trip form.
func jsNumberToString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	s, _ := FormatESNumber(f)
	return s
}

// jsToNumber is ToNumber (through ToPrimitive with hint number, which for JSON values equals the default hint).
func jsToNumber(v any) float64 {
	switch x := jsToPrimitive(v).(type) {
	case jsUndefined:
		return math.NaN()
	case nil:
		return 0
	case bool:
		return boolNumber(x)
	case float64:
		return x
	case string:
		return stringToNumber(x)
	}
	return math.NaN()
}

// isJSWhiteSpace is StrWhiteSpaceChar: WhiteSpace (TAB VT FF SP NBSP ZWNBSP and category Zs) and LineTerminator.
func isJSWhiteSpace(r rune) bool {
	switch r {
	case '\t', '\v', '\f', ' ', 0xA0, 0xFEFF, '\n', '\r', 0x2028, 0x2029,
		0x1680, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

func trimJSWhiteSpace(s string) string {
	return strings.TrimFunc(s, isJSWhiteSpace)
}

var (
	strDecimalLiteral = regexp.MustCompile(`^[+-]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)$`)
	strDecimalPrefix  = regexp.MustCompile(`^[+-]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)`)
	strNonDecimal     = regexp.MustCompile(`^0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)$`)
)

// stringToNumber is StringToNumber: trimmed; "" is 0; decimal with optional sign and Infinity; 0x/0o/0b without a
// sign; anything else NaN.
func stringToNumber(s string) float64 {
	t := trimJSWhiteSpace(s)
	if t == "" {
		return 0
	}
	if strNonDecimal.MatchString(t) {
		base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[t[1]]
		n, _ := new(big.Int).SetString(t[2:], base)
		f, _ := new(big.Float).SetInt(n).Float64()
		return f
	}
	if !strDecimalLiteral.MatchString(t) {
		return math.NaN()
	}
	return parseDecimal(t)
}

func parseDecimal(t string) float64 {
	switch strings.TrimLeft(t, "+") {
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil && !math.IsInf(f, 0) && f != 0 {
		return math.NaN()
	}
	return f
}

// jsParseFloat is the global parseFloat: String(v), leading white space skipped, the longest decimal prefix.
func jsParseFloat(v any) float64 {
	s := strings.TrimLeftFunc(jsToString(v), isJSWhiteSpace)
	prefix := strDecimalPrefix.FindString(s)
	if prefix == "" {
		return math.NaN()
	}
	return parseDecimal(prefix)
}

// jsLessThan is IsLessThan after ToPrimitive: two strings compare by UTF-16 code units, anything else as numbers;
// defined is false when a side is NaN (every relational operator is then false).
func jsLessThan(a, b any) (less, defined bool) {
	pa, pb := jsToPrimitive(a), jsToPrimitive(b)
	if sa, ok := pa.(string); ok {
		if sb, ok := pb.(string); ok {
			return compareUnits(utf16Units(sa), utf16Units(sb)) < 0, true
		}
	}
	na, nb := jsToNumber(pa), jsToNumber(pb)
	if math.IsNaN(na) || math.IsNaN(nb) {
		return false, false
	}
	return na < nb, true
}

func jsLT(a, b any) bool { r, ok := jsLessThan(a, b); return ok && r }
func jsGT(a, b any) bool { r, ok := jsLessThan(b, a); return ok && r }
func jsLE(a, b any) bool { r, ok := jsLessThan(b, a); return ok && !r }
func jsGE(a, b any) bool { r, ok := jsLessThan(a, b); return ok && !r }

// utf16Units decodes a WTF-8 string to UTF-16 code units (a 3-byte surrogate encoding is its lone unit).
func utf16Units(s string) []uint16 {
	units := make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			units = append(units, uint16(c))
			i++
			continue
		}
		if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
			units = append(units, 0xD000|uint16(s[i+1]&0x3F)<<6|uint16(s[i+2]&0x3F))
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			units = append(units, uint16(hi), uint16(lo))
		} else {
			units = append(units, uint16(r))
		}
		i += size
	}
	return units
}

// unitsString encodes UTF-16 code units as WTF-8: pairs as their code point, a lone surrogate as its 3-byte form.
func unitsString(units []uint16) string {
	buf := make([]byte, 0, len(units))
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		if u >= 0xD800 && u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] < 0xE000 {
			buf = utf8.AppendRune(buf, utf16.DecodeRune(u, rune(units[i+1])))
			i++
			continue
		}
		if u >= 0xD800 && u < 0xE000 {
			buf = append(buf, 0xED, byte(0x80|(u>>6)&0x3F), byte(0x80|u&0x3F))
			continue
		}
		buf = utf8.AppendRune(buf, u)
	}
	return string(buf)
}

func compareUnits(a, b []uint16) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

// unitsIndexOf is String.prototype.indexOf on code units.
func unitsIndexOf(haystack, needle []uint16) int {
	for i := 0; i+len(needle) <= len(haystack); i++ {
		match := true
		for j := range needle {
			if haystack[i+j] != needle[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// toIntegerOrInfinity is ToIntegerOrInfinity: NaN is 0, otherwise truncated toward zero.
func toIntegerOrInfinity(v any) float64 {
	n := jsToNumber(v)
	if math.IsNaN(n) {
		return 0
	}
	return math.Trunc(n)
}

// isArrayIndex says whether a property key is a canonical array index ("0", "17"; not "01", not 2^32-1).
func isArrayIndex(key string) (int, bool) {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(key, 10, 64)
	if err != nil || n >= math.MaxUint32 {
		return 0, false
	}
	return int(n), true
}
