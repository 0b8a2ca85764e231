// The strict JsonLogic profile `aar-jsonlogic/1` (CONTRACT section 19, DESIGN-27 section 1): a port of core's
// checkRuleProfile (packages/core/src/rules/profile.ts), same walk, same pointers, same messages.
//
// Attacker assumption: a rule is written by a careless or hostile operator and evaluated in four runtimes that must
// agree bit for bit, so the profile admits only what all four evaluate identically: a closed operator list, integer
// literals only, literal `var`/`missing` paths that can never reach an inherited JavaScript property, and bounded
// size and depth.

package aar

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// RuleProfile names the profile.
const RuleProfile = "aar-jsonlogic/1"

// Limits of the profile.
const (
	MaxRuleDepth = 32
	MaxRuleNodes = 2000
	// MaxPackBytes bounds a pack document's JSON text (UTF-8 bytes).
	MaxPackBytes = 256 * 1024
)

// RuleOperators is the closed operator list (`==`, `!=`, `/`, `log`, `method`, `?:`, `filter`, `map`, `reduce` are
// refused).
var RuleOperators = []string{
	"var", "missing", "missing_some", "if", "===", "!==", "!", "!!", "or", "and", "<", "<=", ">", ">=", "in", "cat",
	"substr", "some", "all", "none", "merge", "min", "max", "+", "-", "*", "%",
}

// InheritedPropertyNames is core's INHERITED_PROPERTY_NAMES, copied literally: every own property name of
// Object.prototype, Array.prototype, String.prototype, Number.prototype and Boolean.prototype (Node 20). A path
// segment with one of these names is refused, because json-logic-js would find the inherited property.
var InheritedPropertyNames = []string{
	"__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__", "__proto__", "anchor", "at", "big",
	"blink", "bold", "charAt", "charCodeAt", "codePointAt", "concat", "constructor", "copyWithin", "endsWith",
	"entries", "every", "fill", "filter", "find", "findIndex", "findLast", "findLastIndex", "fixed", "flat", "flatMap",
	"fontcolor", "fontsize", "forEach", "hasOwnProperty", "includes", "indexOf", "isPrototypeOf", "isWellFormed",
	"italics", "join", "keys", "lastIndexOf", "length", "link", "localeCompare", "map", "match", "matchAll",
	"normalize", "padEnd", "padStart", "pop", "propertyIsEnumerable", "push", "reduce", "reduceRight", "repeat",
	"replace", "replaceAll", "reverse", "search", "shift", "slice", "small", "some", "sort", "splice", "split",
	"startsWith", "strike", "sub", "substr", "substring", "sup", "toExponential", "toFixed", "toLocaleLowerCase",
	"toLocaleString", "toLocaleUpperCase", "toLowerCase", "toPrecision", "toReversed", "toSorted", "toSpliced",
	"toString", "toUpperCase", "toWellFormed", "trim", "trimEnd", "trimLeft", "trimRight", "trimStart", "unshift",
	"valueOf", "values", "with",
}

var (
	ruleOperatorSet  = stringSet(RuleOperators)
	inheritedNameSet = stringSet(InheritedPropertyNames)
	rulePathSegment  = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	scopedOperators  = stringSet([]string{"some", "all", "none"})
)

func stringSet(list []string) map[string]bool {
	out := make(map[string]bool, len(list))
	for _, s := range list {
		out[s] = true
	}
	return out
}

// RuleProblem is one refusal: an RFC 6901 pointer into the pack document and what is wrong there.
type RuleProblem struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// RulePathProblem says why a `var`/`missing` path is refused, or "" when it is inside the profile ("" is the data).
func RulePathProblem(path string) string {
	if path == "" {
		return ""
	}
	for _, segment := range strings.Split(path, ".") {
		if !rulePathSegment.MatchString(segment) {
			return fmt.Sprintf("path %s: segment %s must match ^[A-Za-z0-9_]+$", jsonQuote(path), jsonQuote(segment))
		}
		if inheritedNameSet[segment] {
			return fmt.Sprintf("path %s: segment %s is an inherited property name", jsonQuote(path), jsonQuote(segment))
		}
	}
	return ""
}

// jsonQuote is JSON.stringify of a string.
func jsonQuote(s string) string {
	b, err := Canonicalize(s)
	if err != nil {
		return strconv.Quote(s)
	}
	return string(b)
}

// AppendPointer appends one reference token to an RFC 6901 pointer, escaping `~` and `/`.
func AppendPointer(pointer string, token any) string {
	switch t := token.(type) {
	case int:
		return pointer + "/" + strconv.Itoa(t)
	case string:
		return pointer + "/" + strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
	}
	return pointer + "/" + fmt.Sprint(token)
}

// CheckRuleProfile lists every refusal of expr (a generic JSON value) against the profile, each pointer under
// pointer (where expr sits in its document, "" for a bare rule). Empty: the rule is inside the profile.
func CheckRuleProfile(expr any, pointer string) []RuleProblem {
	s := &profileState{problems: []RuleProblem{}}
	s.node(expr, pointer, 1)
	if s.nodes > MaxRuleNodes {
		s.refuse(pointer, fmt.Sprintf("rule has %d nodes, at most %d allowed", s.nodes, MaxRuleNodes))
	}
	return s.problems
}

type profileState struct {
	problems []RuleProblem
	nodes    int
}

func (s *profileState) refuse(pointer, message string) {
	s.problems = append(s.problems, RuleProblem{Pointer: pointer, Message: message})
}

// enter counts the node at depth (the rule itself is level 1); false, after a refusal, when it is past the limit.
func (s *profileState) enter(pointer string, depth int) bool {
	s.nodes++
	if depth <= MaxRuleDepth {
		return true
	}
	s.refuse(pointer, fmt.Sprintf("rule nests deeper than %d levels", MaxRuleDepth))
	return false
}

func (s *profileState) node(value any, pointer string, depth int) {
	if !s.enter(pointer, depth) {
		return
	}
	switch v := value.(type) {
	case nil, string, bool:
		return
	case float64:
		if !isSafeInteger(v) {
			s.refuse(pointer, fmt.Sprintf("number %s is not a safe integer (integers only)", jsNumberToString(v)))
		}
		return
	case []any:
		for i, item := range v {
			s.node(item, AppendPointer(pointer, i), depth+1)
		}
		return
	case map[string]any:
		if len(v) != 1 {
			s.refuse(pointer, fmt.Sprintf("an object in a rule must be an operation with exactly one operator (found %d members)", len(v)))
			return
		}
		for op, args := range v {
			s.operation(op, args, AppendPointer(pointer, op), depth+1)
		}
		return
	}
	s.refuse(pointer, fmt.Sprintf("%T is not a JSON value", value))
}

func (s *profileState) operation(op string, args any, at string, depth int) {
	if !ruleOperatorSet[op] {
		s.refuse(at, fmt.Sprintf("operator %s is not in the profile", jsonQuote(op)))
		return
	}
	switch op {
	case "var":
		s.varArgs(args, at, depth)
		return
	case "missing":
		s.missingArgs(args, at, depth)
		return
	case "missing_some":
		s.missingSomeArgs(args, at, depth)
		return
	}
	if list, ok := args.([]any); scopedOperators[op] && (!ok || len(list) != 2) {
		s.refuse(at, op+" takes exactly two arguments: [array, rule]")
		return
	}
	s.node(args, at, depth)
}

// varArgs: "path", integer, ["path"] or ["path", default]; the default may be any rule.
func (s *profileState) varArgs(args any, pointer string, depth int) {
	list, ok := args.([]any)
	if !ok {
		s.literalPath(args, pointer, depth)
		return
	}
	if !s.enter(pointer, depth) {
		return
	}
	if len(list) < 1 || len(list) > 2 {
		s.refuse(pointer, "var takes [path] or [path, default]")
		return
	}
	s.literalPath(list[0], AppendPointer(pointer, 0), depth+1)
	if len(list) == 2 {
		s.node(list[1], AppendPointer(pointer, 1), depth+1)
	}
}

// missingArgs: "path", ["p1", "p2"...] or [["p1", "p2"...]]: literal paths only.
func (s *profileState) missingArgs(args any, pointer string, depth int) {
	list, ok := args.([]any)
	if !ok {
		s.literalPath(args, pointer, depth)
		return
	}
	if !s.enter(pointer, depth) {
		return
	}
	if len(list) == 1 {
		if _, inner := list[0].([]any); inner {
			s.pathList(list[0], AppendPointer(pointer, 0), depth+1)
			return
		}
	}
	for i, item := range list {
		s.literalPath(item, AppendPointer(pointer, i), depth+1)
	}
}

// missingSomeArgs: [need_count, ["p1", ...]]: the count is any rule, the paths literal.
func (s *profileState) missingSomeArgs(args any, pointer string, depth int) {
	if !s.enter(pointer, depth) {
		return
	}
	list, ok := args.([]any)
	if !ok || len(list) != 2 {
		s.refuse(pointer, "missing_some takes [need_count, [paths]]")
		return
	}
	s.node(list[0], AppendPointer(pointer, 0), depth+1)
	s.pathList(list[1], AppendPointer(pointer, 1), depth+1)
}

func (s *profileState) pathList(value any, pointer string, depth int) {
	if !s.enter(pointer, depth) {
		return
	}
	list, ok := value.([]any)
	if !ok {
		s.refuse(pointer, "expected a literal array of paths")
		return
	}
	for i, item := range list {
		s.literalPath(item, AppendPointer(pointer, i), depth+1)
	}
}

func (s *profileState) literalPath(path any, pointer string, depth int) {
	if !s.enter(pointer, depth) {
		return
	}
	var text string
	switch p := path.(type) {
	case string:
		text = p
	case float64:
		if !isSafeInteger(p) {
			s.refuse(pointer, "a path must be a literal string or integer (computed paths are refused)")
			return
		}
		text = jsNumberToString(p)
	default:
		s.refuse(pointer, "a path must be a literal string or integer (computed paths are refused)")
		return
	}
	if problem := RulePathProblem(text); problem != "" {
		s.refuse(pointer, problem)
	}
}

// RulePaths lists the data paths a profile-checked rule reads at the top scope (`var` and `missing` paths; the rule
// of `some`/`all`/`none` reads array elements and is not listed), in rule order. A port of core's collectRulePaths.
func RulePaths(expr any) []string {
	var into []string
	collectRulePaths(expr, &into)
	return into
}

func collectRulePaths(expr any, into *[]string) {
	pathText := func(p any) (string, bool) {
		switch x := p.(type) {
		case string:
			return x, true
		case float64:
			if !math.IsNaN(x) {
				return jsNumberToString(x), true
			}
		}
		return "", false
	}
	switch e := expr.(type) {
	case []any:
		for _, item := range e {
			collectRulePaths(item, into)
		}
		return
	case map[string]any:
		if len(e) != 1 {
			return
		}
		for op, args := range e {
			list, isList := args.([]any)
			switch {
			case op == "var":
				if !isList {
					list = []any{args}
				}
				if len(list) > 0 {
					if p, ok := pathText(list[0]); ok {
						*into = append(*into, p)
					}
				}
				if len(list) == 2 {
					collectRulePaths(list[1], into)
				}
			case op == "missing":
				if !isList {
					list = []any{args}
				} else if inner, ok := argAt(list, 0).([]any); ok && len(list) == 1 {
					list = inner
				}
				for _, p := range list {
					if t, ok := pathText(p); ok {
						*into = append(*into, t)
					}
				}
			case op == "missing_some" && isList:
				collectRulePaths(argAt(list, 0), into)
				if paths, ok := argAt(list, 1).([]any); ok {
					for _, p := range paths {
						if t, ok := pathText(p); ok {
							*into = append(*into, t)
						}
					}
				}
			case scopedOperators[op] && isList:
				collectRulePaths(argAt(list, 0), into)
			default:
				collectRulePaths(args, into)
			}
		}
	}
}
