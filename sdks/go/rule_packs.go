// Rule pack documents (`ns.rule_pack.v1`, CONTRACT section 19) outside decide: their digest, a dictionary document
// as rules read it, and a pack's own tests (core's runPackTests), so a policy author or an auditor can check a pack
// with the Go SDK alone.

package aar

import (
	"crypto/sha256"
	"errors"
)

// PolicyDocumentDigest is a published policy document's digest: `sha-256:` + base64url of SHA-256 over the RFC 8785
// bytes of the document without its `signature` (the bytes the signature covers).
func PolicyDocumentDigest(doc any) (string, error) {
	value, err := documentValue(doc)
	if err != nil {
		return "", err
	}
	m, ok := value.(map[string]any)
	if !ok {
		return "", errors.New("policy document is not a JSON object")
	}
	b, err := SigningBytes(m)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha-256:" + encodeBase64URL(sum[:]), nil
}

// DictionarySnapshotOf is a dictionary document (`ns.dictionary.v1`) as a decision snapshot carries it and rules read
// it: `{dictionary_id, version, digest, codes, terms}`, codes in document order, terms by code without `code`.
func DictionarySnapshotOf(doc any) (map[string]any, error) {
	value, err := documentValue(doc)
	if err != nil {
		return nil, err
	}
	digest, err := PolicyDocumentDigest(value)
	if err != nil {
		return nil, err
	}
	terms, ok := get(value, "terms").([]any)
	if !ok {
		return nil, errors.New("dictionary has no terms array")
	}
	codes := make([]any, 0, len(terms))
	byCode := make(map[string]any, len(terms))
	for _, term := range terms {
		code, ok := get(term, "code").(string)
		if !ok {
			return nil, errors.New("dictionary term without a string code")
		}
		rest := map[string]any{}
		for k, v := range term.(map[string]any) {
			if k != "code" {
				rest[k] = v
			}
		}
		codes = append(codes, code)
		byCode[code] = rest
	}
	return map[string]any{
		"dictionary_id": get(value, "dictionary_id"), "version": get(value, "version"), "digest": digest,
		"codes": codes, "terms": byCode,
	}, nil
}

// PackOutcome is a pack's outcome evaluated alone: `deny`, `require_approval`, `obligate` or `none` (purchase), or
// `permit` / `deny` / `none` (generic), with the deciding rule's reason.
type PackOutcome struct {
	Effect string `json:"effect"`
	Reason string `json:"reason,omitempty"`
}

// PackTestResult is one test case of a pack.
type PackTestResult struct {
	Name     any         `json:"name"`
	Passed   bool        `json:"passed"`
	Actual   PackOutcome `json:"actual"`
	Expected any         `json:"expected"`
}

// PackTestReport is RunPackTests's answer.
type PackTestReport struct {
	Passed  int              `json:"passed"`
	Failed  int              `json:"failed"`
	Results []PackTestResult `json:"results"`
}

// RunPackTests runs a pack's own `tests` (core's runPackTests): each case's context is its `request` and `facts`
// (null when absent) with `dict` from the dictionaries the pack declares (dictionaries maps a name to its snapshot,
// DictionarySnapshotOf), and the pack alone decides: for a purchase pack the first deny, else the first
// require_approval, else obligate, else none; for a generic pack deny, else permit, else none. A case passes when
// the effect is the expected one and, when the case names one, so is the reason.
func RunPackTests(doc any, dictionaries map[string]any) PackTestReport {
	report := PackTestReport{Results: []PackTestResult{}}
	value, err := documentValue(doc)
	if err != nil {
		return report
	}
	pack := preparePack(value)
	var dicts any = map[string]any{}
	if dictionaries != nil {
		dicts = dictionaries
	}
	dict := toJSValue(ruleDictOf(get(value, "dictionaries"), dicts))
	tests, _ := get(value, "tests").([]any)
	for _, test := range tests {
		given := get(test, "context")
		if !isRecord(given) {
			given = map[string]any{}
		}
		orNull := func(v any) any {
			if isUndefined(v) {
				return nil
			}
			return toJSValue(v)
		}
		context := &jsObject{map[string]any{
			"request": orNull(get(given, "request")), "facts": orNull(get(given, "facts")), "dict": dict,
		}}
		matches := matchPack(&pack, context)
		actual := purchaseOutcome(matches)
		if pack.domain == "generic" {
			actual = genericOutcome(matches)
		}
		expected := get(test, "expect")
		passed := isRecord(expected) && strictEqual(get(expected, "effect"), actual.Effect)
		if want := get(expected, "reason"); passed && !isUndefined(want) {
			passed = actual.Reason != "" && strictEqual(want, actual.Reason)
		}
		report.Results = append(report.Results, PackTestResult{
			Name: get(test, "name"), Passed: passed, Actual: actual, Expected: expected,
		})
		if passed {
			report.Passed++
		} else {
			report.Failed++
		}
	}
	return report
}

// GenericDecision is DecideGeneric's answer.
type GenericDecision struct {
	Decision string           `json:"decision"`
	Reason   string           `json:"reason,omitempty"`
	Rules    []RuleDiagnostic `json:"rules"`
}

// DecideGeneric decides a request that is not a purchase with packs of the generic domain (core's decideGeneric):
// deny overrides, default deny; `permit` only when some permit rule matched and no deny rule did. context is
// `{request, facts}` (extra members kept); with dictionaries, `dict` is filled per pack from its declarations, else
// the context's own `dict` is used. Packs of another domain are skipped.
func DecideGeneric(packs []any, context map[string]any, dictionaries map[string]any) GenericDecision {
	out := GenericDecision{Rules: []RuleDiagnostic{}}
	base := map[string]any{}
	for k, v := range context {
		base[k] = toJSValue(v)
	}
	var deny *ruleMatch
	permit := false
	for _, doc := range packs {
		pack := preparePack(doc)
		if pack.domain != "generic" {
			continue
		}
		members := base
		if dictionaries != nil {
			members = make(map[string]any, len(base)+1)
			for k, v := range base {
				members[k] = v
			}
			members["dict"] = toJSValue(ruleDictOf(pack.dictionaries, dictionaries))
		}
		for _, m := range matchPack(&pack, &jsObject{members}) {
			m := m
			out.Rules = append(out.Rules, m.diagnostic())
			if m.rule.effect == "deny" {
				if deny == nil {
					deny = &m
				}
			} else {
				permit = true
			}
		}
	}
	switch {
	case deny != nil:
		out.Decision, out.Reason = "deny", deny.rule.reason
	case permit:
		out.Decision = "permit"
	default:
		out.Decision = "deny"
	}
	return out
}
