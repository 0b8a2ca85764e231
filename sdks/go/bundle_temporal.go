// temporal_validity (core's bundles/temporal-check.ts): at the instant of the decision (the pack's `now`) every link
// of the chain was issued, unexpired and not yet revoked (a revocation after the decision does not undo it; a state
// without its moment cannot be placed, so it fails), and every signature of the bundle was made while its key was
// valid: each key's JWKS window (`valid_from`, `valid_until`) holds the time its document states (the map's and
// links' issue, the pack's and the bundle's assembly, the checkpoint's timestamp, the chain's `as_of`).

package aar

import (
	"context"
	"fmt"
	"strings"
)

func checkTemporalValidity(ctx context.Context, b *bundleContext, _ VerifyBundleOptions) bundleOutcome {
	decidedAt, ok := parseInstant(b.decidedAt)
	if b.decidedAt == "" || !ok {
		return bundleFail("the evidence pack gives no decision instant")
	}
	var failures []string
	chainDoc := b.part("delegation_chain")
	if b.chain != nil {
		for _, p := range b.chain.Problems {
			field := ""
			if p.Field != nil {
				field = *p.Field
			}
			if p.Code == "expired" && p.Index != nil {
				failures = append(failures, fmt.Sprintf("link %d had expired (%s)", *p.Index, field))
			}
			if isRetiredKeyProblem(p) && p.Index != nil {
				failures = append(failures, fmt.Sprintf("link %d was signed by a retired key", *p.Index))
			}
		}
		links, _ := get(chainDoc, "links").([]any)
		for _, report := range b.chain.Links {
			var link any = undefined
			if report.Index < len(links) {
				link = links[report.Index]
			}
			issued, ok := parseInstant(get(link, "issued_at"))
			if !ok || compareInstants(issued, decidedAt) > 0 {
				failures = append(failures, fmt.Sprintf("link %d was issued after the decision", report.Index))
			}
			if report.State == nil || *report.State == "active" {
				continue
			}
			var revokedAt any = undefined
			if report.RevokedAt != nil {
				revokedAt = *report.RevokedAt
			}
			revoked, ok := parseInstant(revokedAt)
			if !ok {
				failures = append(failures, fmt.Sprintf("link %d is `%s` since an unknown time", report.Index, *report.State))
			} else if compareInstants(revoked, decidedAt) <= 0 {
				failures = append(failures, fmt.Sprintf("link %d was revoked before the decision", report.Index))
			}
		}
	}
	signed := []struct {
		what string
		doc  any
		time string
	}{
		{"bundle", b.bundle, "created_at"},
		{"decision map", b.part("decision_map"), "issued_at"},
		{"evidence pack", any(b.pack), "issued_at"},
		{"checkpoint", b.part("checkpoint"), "timestamp"},
		{"delegation chain", chainDoc, "as_of"},
	}
	for _, s := range signed {
		if !isRecord(s.doc) {
			continue // absent parts are other checks' failures
		}
		if why := keyWindowProblem(ctx, b.keys, get(get(s.doc, "signature"), "key_id"), get(s.doc, s.time)); why != "" {
			failures = append(failures, "the "+s.what+" "+why)
		}
	}
	if len(failures) > 0 {
		if len(failures) > 5 {
			failures = failures[:5]
		}
		return bundleFail(strings.Join(failures, "; "))
	}
	return bundlePass("the chain and every signing key were valid at `" + b.decidedAt + "`")
}

// keyWindowProblem says why keyID was not valid at time by its JWKS window; "" when it was, or when the key is
// unknown (an unknown key fails its signature check, not this one).
func keyWindowProblem(ctx context.Context, keys KeySource, keyID, time any) string {
	id, ok := keyID.(string)
	if !ok || keys == nil {
		return ""
	}
	key, err := keys.LookupKey(ctx, id)
	if err != nil {
		return ""
	}
	at, ok := parseInstant(time)
	if !ok {
		return "states no time its key can be judged at"
	}
	if key.ValidFrom != "" {
		if from, ok := parseInstant(key.ValidFrom); !ok || compareInstants(at, from) < 0 {
			return "was signed before key `" + id + "` was valid"
		}
	}
	if key.ValidUntil != "" {
		if until, ok := parseInstant(key.ValidUntil); !ok || compareInstants(at, until) > 0 {
			return "was signed after key `" + id + "` was retired"
		}
	}
	return ""
}
