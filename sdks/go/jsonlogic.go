// A JsonLogic evaluator with json-logic-js 2.0.5's exact semantics (node_modules/json-logic-js/logic.js is the source
// of truth), written by hand: no Go JsonLogic library reproduces JavaScript's coercions, and a rule must decide the
// same in the server, the browser, Python and Go (CONTRACT section 19). Rules are checked against the profile
// `aar-jsonlogic/1` (jsonlogic_profile.go) before they are evaluated; the evaluator itself implements every
// operator of json-logic-js 2.0.5 (`==`, `/`, `filter`... included), because data values may be re-read as logic
// (`missing` applies `{"var": key}` to each key) exactly as JavaScript does.
//
// Attacker assumption: data is hostile JSON (any shape, any member names); a JavaScript exception (a TypeError, an
// unknown operator) becomes an error, never a panic escaping the package.

package aar

import (
	"fmt"
	"math"
	"strings"
)

// JSUndefined is JavaScript's `undefined` as ApplyJsonLogic returns it (`{"and": []}` answers it).
var JSUndefined any = undefined

// IsJSUndefined says whether v is JavaScript's `undefined`.
func IsJSUndefined(v any) bool { return isUndefined(v) }

// ApplyJsonLogic is `jsonLogic.apply(rule, data)` on generic JSON values (ParseJSON's form). The answer is a generic
// value too, whose numbers may be NaN or ±Inf and which may be JSUndefined; an exception JavaScript would throw is
// returned as an error. It does not check the profile: call CheckRuleProfile first for rules from a pack.
func ApplyJsonLogic(rule, data any) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			if t, ok := r.(jsThrow); ok {
				err = t
				return
			}
			err = fmt.Errorf("jsonlogic: %v", r)
		}
	}()
	return fromJSValue(applyLogic(toJSValue(rule), toJSValue(data))), nil
}

// JsonLogicTruthy is jsonLogic.truthy on a generic value: JavaScript truthiness where an empty array is false.
func JsonLogicTruthy(v any) bool { return jsTruthy(toJSValue(v)) }

// applyLogic is jsonLogic.apply on the evaluator's values.
func applyLogic(logic, data any) any {
	switch l := logic.(type) {
	case *jsArray:
		out := make([]any, len(l.items))
		for i, item := range l.items {
			out[i] = applyLogic(item, data)
		}
		return &jsArray{out}
	case *jsObject:
		if len(l.members) != 1 {
			return logic
		}
		for op, values := range l.members {
			return applyOperation(op, values, data)
		}
	}
	return logic
}

// applyOperation runs `{op: values}` on data: the control operators manage their own recursion, every other
// operator receives its arguments evaluated depth first.
func applyOperation(op string, values, data any) any {
	var args []any
	if a, ok := values.(*jsArray); ok {
		args = a.items
	} else {
		args = []any{values}
	}
	switch op {
	case "if", "?:":
		i := 0
		for ; i < len(args)-1; i += 2 {
			if jsTruthy(applyLogic(args[i], data)) {
				return applyLogic(args[i+1], data)
			}
		}
		if len(args) == i+1 {
			return applyLogic(args[i], data)
		}
		return nil
	case "and", "or":
		var current any = undefined
		for _, a := range args {
			current = applyLogic(a, data)
			if jsTruthy(current) == (op == "or") {
				return current
			}
		}
		return current
	case "filter", "map", "reduce", "all", "none", "some":
		return applyScoped(op, args, data)
	}
	evaluated := make([]any, len(args))
	for i, a := range args {
		evaluated[i] = applyLogic(a, data)
	}
	if fn, ok := operations[op]; ok {
		return fn(evaluated, data)
	}
	// Unknown, or a dotted name (json-logic-js walks its operation table along it: no JSON-reachable path ends at a
	// callable operation, so that throws too).
	throwJS("Unrecognized operation " + op)
	return nil
}

func argAt(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return undefined
}

// applyScoped runs the operators whose second argument is evaluated with each element of the first as its data.
func applyScoped(op string, args []any, data any) any {
	scoped := applyLogic(argAt(args, 0), data)
	logic := argAt(args, 1)
	arr, isArray := scoped.(*jsArray)
	switch op {
	case "filter", "map":
		if !isArray {
			return &jsArray{[]any{}}
		}
		out := []any{}
		for _, item := range arr.items {
			r := applyLogic(logic, item)
			if op == "map" {
				out = append(out, r)
			} else if jsTruthy(r) {
				out = append(out, item)
			}
		}
		return &jsArray{out}
	case "reduce":
		var acc any
		if init := argAt(args, 2); !isUndefined(init) {
			acc = applyLogic(init, data)
		}
		if !isArray {
			return acc
		}
		for _, item := range arr.items {
			acc = applyLogic(logic, &jsObject{map[string]any{"current": item, "accumulator": acc}})
		}
		return acc
	}
	if !isArray || len(arr.items) == 0 {
		return op == "none"
	}
	for _, item := range arr.items {
		t := jsTruthy(applyLogic(logic, item))
		switch {
		case op == "all" && !t:
			return false
		case op == "none" && t:
			return false
		case op == "some" && t:
			return true
		}
	}
	return op != "some"
}

// operations are json-logic-js's `operations` table: each receives its evaluated arguments and the data (`this`).
var operations map[string]func(args []any, data any) any

func init() {
	operations = map[string]func(args []any, data any) any{
		"==":  func(a []any, _ any) any { return jsLooseEquals(argAt(a, 0), argAt(a, 1)) },
		"===": func(a []any, _ any) any { return jsStrictEquals(argAt(a, 0), argAt(a, 1)) },
		"!=":  func(a []any, _ any) any { return !jsLooseEquals(argAt(a, 0), argAt(a, 1)) },
		"!==": func(a []any, _ any) any { return !jsStrictEquals(argAt(a, 0), argAt(a, 1)) },
		">":   func(a []any, _ any) any { return jsGT(argAt(a, 0), argAt(a, 1)) },
		">=":  func(a []any, _ any) any { return jsGE(argAt(a, 0), argAt(a, 1)) },
		"<":   func(a []any, _ any) any { return between(a, jsLT) },
		"<=":  func(a []any, _ any) any { return between(a, jsLE) },
		"!!":  func(a []any, _ any) any { return jsTruthy(argAt(a, 0)) },
		"!":   func(a []any, _ any) any { return !jsTruthy(argAt(a, 0)) },
		"%": func(a []any, _ any) any {
			x, y := jsToNumber(argAt(a, 0)), jsToNumber(argAt(a, 1))
			return math.Mod(x, y)
		},
		"log":          func(a []any, _ any) any { return argAt(a, 0) },
		"in":           opIn,
		"cat":          opCat,
		"substr":       opSubstr,
		"+":            opPlus,
		"*":            opTimes,
		"-":            opMinus,
		"/":            func(a []any, _ any) any { return jsToNumber(argAt(a, 0)) / jsToNumber(argAt(a, 1)) },
		"min":          func(a []any, _ any) any { return minMax(a, true) },
		"max":          func(a []any, _ any) any { return minMax(a, false) },
		"merge":        opMerge,
		"var":          opVar,
		"missing":      opMissing,
		"missing_some": opMissingSome,
	}
}

// between is `<` / `<=` with an optional third argument: `a < b && b < c` (a third argument of undefined is none).
func between(a []any, cmp func(x, y any) bool) bool {
	x, y, z := argAt(a, 0), argAt(a, 1), argAt(a, 2)
	if isUndefined(z) {
		return cmp(x, y)
	}
	return cmp(x, y) && cmp(y, z)
}

// opIn: `b.indexOf(a) !== -1` when b is truthy and has an indexOf (a string or an array); otherwise false.
func opIn(a []any, _ any) any {
	needle, hay := argAt(a, 0), argAt(a, 1)
	if !plainTruthy(hay) {
		return false
	}
	switch h := hay.(type) {
	case string:
		n := jsToString(needle)
		if isASCII(h) && isASCII(n) {
			return strings.Contains(h, n)
		}
		return unitsIndexOf(utf16Units(h), utf16Units(n)) != -1
	case *jsArray:
		for _, item := range h.items {
			if jsStrictEquals(item, needle) {
				return true
			}
		}
		return false
	case *jsObject:
		if _, own := h.members["indexOf"]; own {
			throwJS("TypeError: b.indexOf is not a function")
		}
	}
	return false
}

// plainTruthy is JavaScript's own truthiness (`!b`), where an empty array is true.
func plainTruthy(v any) bool {
	if _, ok := v.(*jsArray); ok {
		return true
	}
	return jsTruthy(v)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// opCat is Array.prototype.join.call(arguments, ""): null and undefined are empty.
func opCat(a []any, _ any) any { return joinArray(&jsArray{a}, "") }

// opSubstr is String(source).substr(start, end), and for a negative end (PHP's meaning) the substring up to that
// many code units from the end. `temp.length + end` adds numbers, or concatenates when end is a string or array.
func opSubstr(a []any, _ any) any {
	source, start, end := argAt(a, 0), argAt(a, 1), argAt(a, 2)
	units := utf16Units(jsToString(source))
	if jsLT(end, 0.0) {
		temp := substrUnits(units, start, undefined)
		var length any
		if n, ok := end.(float64); ok {
			length = float64(len(temp)) + n
		} else {
			length = jsNumberToString(float64(len(temp))) + jsToString(jsToPrimitive(end))
		}
		return unitsString(substrUnits(temp, 0.0, length))
	}
	return unitsString(substrUnits(units, start, end))
}

// substrUnits is String.prototype.substr on UTF-16 code units.
func substrUnits(units []uint16, start, length any) []uint16 {
	size := float64(len(units))
	s := toIntegerOrInfinity(start)
	switch {
	case math.IsInf(s, -1):
		s = 0
	case s < 0:
		s = math.Max(size+s, 0)
	default:
		s = math.Min(s, size)
	}
	l := size
	if !isUndefined(length) {
		l = toIntegerOrInfinity(length)
	}
	l = math.Min(math.Max(l, 0), size)
	e := math.Min(s+l, size)
	if e <= s {
		return []uint16{}
	}
	return units[int(s):int(e)]
}

// opPlus folds parseFloat(a) + parseFloat(b) from 0.
func opPlus(a []any, _ any) any {
	var acc any = 0.0
	for _, x := range a {
		acc = jsParseFloat(acc) + jsParseFloat(x)
	}
	return acc
}

// opTimes folds parseFloat(a) * parseFloat(b) without an initial value: no argument throws, one is returned as is.
func opTimes(a []any, _ any) any {
	if len(a) == 0 {
		throwJS("TypeError: Reduce of empty array with no initial value")
	}
	acc := a[0]
	for _, x := range a[1:] {
		acc = jsParseFloat(acc) * jsParseFloat(x)
	}
	return acc
}

func opMinus(a []any, _ any) any {
	x, y := argAt(a, 0), argAt(a, 1)
	if isUndefined(y) {
		return -jsToNumber(x)
	}
	return jsToNumber(x) - jsToNumber(y)
}

// minMax is Math.min / Math.max: every argument coerced, NaN if any is NaN, -0 below +0, ±Infinity for none.
func minMax(a []any, isMin bool) float64 {
	nums := make([]float64, len(a))
	for i, x := range a {
		nums[i] = jsToNumber(x)
	}
	result := math.Inf(1)
	if !isMin {
		result = math.Inf(-1)
	}
	for _, n := range nums {
		if math.IsNaN(n) {
			return math.NaN()
		}
		if isMin {
			result = math.Min(result, n)
		} else {
			result = math.Max(result, n)
		}
	}
	return result
}

// opMerge concatenates: array arguments are spread one level, anything else appended.
func opMerge(a []any, _ any) any {
	out := []any{}
	for _, x := range a {
		if arr, ok := x.(*jsArray); ok {
			out = append(out, arr.items...)
		} else {
			out = append(out, x)
		}
	}
	return &jsArray{out}
}

// opVar reads a dotted path from the data; a missing step answers the default (null when none is given).
func opVar(a []any, data any) any {
	path, def := argAt(a, 0), argAt(a, 1)
	var notFound any = def
	if isUndefined(def) {
		notFound = nil
	}
	if isUndefined(path) || path == nil {
		return data
	}
	if s, ok := path.(string); ok && s == "" {
		return data
	}
	current := data
	for _, segment := range strings.Split(jsToString(path), ".") {
		if current == nil || isUndefined(current) {
			return notFound
		}
		current = jsProperty(current, segment)
		if isUndefined(current) {
			return notFound
		}
	}
	return current
}

// jsProperty is `value[key]` for the own properties JSON values have: object members, array and string indices, and
// `length` of arrays and strings. Inherited properties (methods) read as undefined here: the profile refuses every
// such name in a rule's path (INHERITED_PROPERTY_NAMES), so a checked rule never reaches one.
func jsProperty(value any, key string) any {
	switch v := value.(type) {
	case *jsObject:
		if x, ok := v.members[key]; ok {
			return x
		}
	case *jsArray:
		if i, ok := isArrayIndex(key); ok && i < len(v.items) {
			return v.items[i]
		}
		if key == "length" {
			return float64(len(v.items))
		}
	case string:
		units := utf16Units(v)
		if i, ok := isArrayIndex(key); ok && i < len(units) {
			return unitsString(units[i : i+1])
		}
		if key == "length" {
			return float64(len(units))
		}
	}
	return undefined
}

// opMissing lists the keys whose `{"var": key}` is null or "" (one array argument is the list of keys).
func opMissing(a []any, data any) any {
	keys := a
	if len(a) > 0 {
		if arr, ok := a[0].(*jsArray); ok {
			keys = arr.items
		}
	}
	missing := []any{}
	for _, key := range keys {
		value := applyOperation("var", key, data)
		if value == nil || value == "" {
			missing = append(missing, key)
		}
	}
	return &jsArray{missing}
}

// opMissingSome: [] when at least need_count of the options are present, else the missing ones.
func opMissingSome(a []any, data any) any {
	need, options := argAt(a, 0), argAt(a, 1)
	areMissing := applyOperation("missing", options, data).(*jsArray)
	var length any
	switch o := options.(type) {
	case jsUndefined, nil:
		throwJS("TypeError: Cannot read properties of " + jsToString(o) + " (reading 'length')")
	default:
		length = jsProperty(o, "length")
	}
	if jsGE(jsToNumber(length)-float64(len(areMissing.items)), need) {
		return &jsArray{[]any{}}
	}
	return areMissing
}
