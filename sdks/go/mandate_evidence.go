package aar

// The evidence pack's `mandates` check (issue 29, DESIGN-29 section 8): every grant of the snapshot's chains that was
// made from a mandate or allowance (its `mandate` binding) has its entry in the pack's `mandates` member (same id,
// format and digest); each entry's digest is the hash of its document; an AP2 document, and the `presented` closed
// presentation that must extend it (document + '~' + further hops), verify against the entry's `issuer_jwks`.
// Attacker assumption: the pack's creator dropped or swapped a mandate, edited its text, or re-signed a hop with a
// key of their own; keys come from the entry's `issuer_jwks` (a pack-level record of the configured issuer, covered
// by the pack's signature) and from the chain itself, never from a JWS header.

import "strings"

// snapshotMandateBindings lists the `mandate` member of every grant in `grants` and each `alternatives` chain.
func snapshotMandateBindings(snapshot any) []any {
	chains := []any{get(snapshot, "grants")}
	if alternatives, ok := get(snapshot, "alternatives").([]any); ok {
		chains = append(chains, alternatives...)
	}
	out := []any{}
	for _, chain := range chains {
		grants, _ := chain.([]any)
		for _, grant := range grants {
			if m, ok := grant.(map[string]any); ok {
				if binding, has := m["mandate"]; has {
					out = append(out, binding)
				}
			}
		}
	}
	return out
}

type mandateEntry struct {
	id, format, digest, document, issuer string
	issuerJWKS                           any
	presented                            *string
}

func parseMandateEntries(v any) ([]mandateEntry, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := []mandateEntry{}
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, false
		}
		e := mandateEntry{issuerJWKS: m["issuer_jwks"]}
		e.issuer, _ = m["issuer"].(string)
		for name, dst := range map[string]*string{"mandate_id": &e.id, "format": &e.format, "digest": &e.digest, "document": &e.document} {
			s, ok := m[name].(string)
			if !ok {
				return nil, false
			}
			*dst = s
		}
		if e.format != "ap2" && e.format != "acp" {
			return nil, false
		}
		if p, has := m["presented"]; has {
			s, ok := p.(string)
			if !ok {
				return nil, false
			}
			e.presented = &s
		}
		out = append(out, e)
	}
	return out, true
}

// CheckMandates is the `mandates` check of an evidence pack: applies is false when neither the snapshot nor the
// pack carries a mandate (the check is then not recorded); failure is "" when it passes, else one of
// `malformed_mandates`, `mandate_missing`, `mandate_digest_mismatch`, `mandate_signature_invalid`.
func CheckMandates(pack any) (failure string, applies bool) {
	bindings := snapshotMandateBindings(get(pack, "snapshot"))
	member, hasMember := any(nil), false
	if m, ok := pack.(map[string]any); ok {
		member, hasMember = m["mandates"]
	}
	if len(bindings) == 0 && !hasMember {
		return "", false
	}
	if !hasMember {
		member = []any{}
	}
	entries, ok := parseMandateEntries(member)
	if !ok {
		return "malformed_mandates", true
	}
	for _, b := range bindings {
		id, ok := get(b, "mandate_id").(string)
		if !ok {
			return "malformed_mandates", true
		}
		found := false
		for _, e := range entries {
			if e.id == id && strictEqual(get(b, "format"), e.format) && strictEqual(get(b, "digest"), e.digest) {
				found = true
				break
			}
		}
		if !found {
			return "mandate_missing", true
		}
	}
	for _, e := range entries {
		if failure := checkMandateEntry(e); failure != "" {
			return failure, true
		}
	}
	return "", true
}

func checkMandateEntry(e mandateEntry) string {
	if MandateDigest(e.document) != e.digest {
		return "mandate_digest_mismatch"
	}
	if e.format == "acp" {
		return ""
	}
	texts := []string{e.document}
	if e.presented != nil {
		if !strings.HasPrefix(*e.presented, e.document+"~") {
			return "mandate_signature_invalid"
		}
		texts = append(texts, *e.presented)
	}
	for _, text := range texts {
		// as core: the entry names its issuer; without one, a hop 0 that names its `iss` has no trusted key
		if !verifyAp2(text, e.issuerJWKS, e.issuer, true).OK() {
			return "mandate_signature_invalid"
		}
	}
	return ""
}
