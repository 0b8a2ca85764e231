package aar

// The mandate contents of an AP2 chain (core's extractMandates and checkBindings): each `delegate_payload` item is
// an object of a known `vct` with whole-second times, and a closed checkout / payment pair is bound by hashes.

import (
	"fmt"
	"strings"
)

// Ap2Vcts are the mandate content types of AP2 v0.2 (`vct` of a `delegate_payload` item).
var Ap2Vcts = []string{"mandate.payment.open.1", "mandate.payment.1", "mandate.checkout.open.1", "mandate.checkout.1"}

// timeClaims: `exp`, `iat`, `nbf` are whole numbers of seconds when present (their values are not judged offline).
func timeClaims(claims map[string]any, path string) []MandateError {
	out := []MandateError{}
	for _, name := range []string{"exp", "iat", "nbf"} {
		if v, present := claims[name]; present && !isSafeInteger(v) {
			out = append(out, MandateError{path + "/" + name, "schema_invalid", "must be a whole number of seconds"})
		}
	}
	return out
}

// mandateContents is core's extractMandates: each `delegate_payload` item is an object of a known `vct` (a chain may
// re-delegate an open mandate: what the mandates allow together is the service's question, not an offline one).
func mandateContents(hops []Ap2Hop) []MandateError {
	out := []MandateError{}
	for _, hop := range hops {
		base := fmt.Sprintf("/presentation/hops/%d", hop.Index)
		out = append(out, timeClaims(hop.Payload, base+"/payload")...)
		if d, present := hop.Payload["delegate_payload"]; present && d != nil {
			if _, ok := d.([]any); !ok {
				out = append(out, MandateError{base + "/payload/delegate_payload", "schema_invalid", "must be an array"})
			}
		}
		for i, item := range hop.Mandates {
			at := fmt.Sprintf("%s/mandates/%d", base, i)
			content, ok := item.(map[string]any)
			if !ok {
				out = append(out, MandateError{at, "schema_invalid", "a mandate content must be a JSON object"})
				continue
			}
			vct, _ := content["vct"].(string)
			if !includesString(Ap2Vcts, vct) {
				out = append(out, MandateError{at + "/vct", "unsupported_vct", "vct must be one of " + strings.Join(Ap2Vcts, ", ")})
				continue
			}
			out = append(out, timeClaims(content, at)...)
		}
	}
	return out
}

// checkoutBindings: a closed checkout's `checkout_hash` is the SHA-256 of its `checkout_jwt`; a closed payment's
// `transaction_id` is that hash when both are in the chain (core's checkBindings, the first mandate of each type).
func checkoutBindings(hops []Ap2Hop) []MandateError {
	first := func(vct string) (string, map[string]any) {
		for _, hop := range hops {
			for i, m := range hop.Mandates {
				if content, ok := m.(map[string]any); ok && content["vct"] == vct {
					return fmt.Sprintf("/presentation/hops/%d/mandates/%d", hop.Index, i), content
				}
			}
		}
		return "", nil
	}
	out := []MandateError{}
	checkoutPath, checkout := first("mandate.checkout.1")
	paymentPath, payment := first("mandate.payment.1")
	if checkout == nil {
		return out
	}
	hash, isText := checkout["checkout_hash"].(string)
	if !isText {
		out = append(out, MandateError{checkoutPath + "/checkout_hash", "schema_invalid", "must be a string"})
	} else if jwt, ok := checkout["checkout_jwt"].(string); ok && MandateDigest(jwt) != hash {
		out = append(out, MandateError{checkoutPath + "/checkout_hash", "sd_hash_mismatch", "is not the SHA-256 of the disclosed checkout_jwt"})
	}
	if payment != nil && !strictEqual(payment["transaction_id"], checkout["checkout_hash"]) {
		out = append(out, MandateError{paymentPath + "/transaction_id", "sd_hash_mismatch",
			fmt.Sprintf("is not the checkout_hash of the closed checkout mandate (%s)", checkoutPath)})
	}
	return out
}
