// A compliance report (`ns.compliance_report.v1`, docs/reports.md "Verification"), offline: the same checks and
// failure codes as the TypeScript SDK's verifyComplianceReport (shape, period, decisions, denials, approvals,
// revocations, coverage): every total equals the sum of its parts, period.start < period.end.

package aar

import (
	"context"
	"fmt"
	"regexp"
	"unicode/utf16"
)

// ComplianceReportSchema is the schema_version of a compliance report.
const ComplianceReportSchema = "ns.compliance_report.v1"

var (
	reportDecisions        = []string{"allow_with_constraints", "require_approval", "deny"}
	reportOutcomes         = []string{"none", "reserved", "executed", "failed", "refunded"}
	reportApprovalStatuses = []string{"pending", "approved", "rejected", "expired", "consumed"}
	reportControlStatuses  = []string{"satisfied", "partially_satisfied", "not_applicable", "gap"}
	reportCurrency         = regexp.MustCompile(`^[A-Z]{3}$`)
)

func countOf(v any) float64 { f, _ := v.(float64); return f }

// sumOf is the sum of the named counts, ok false when one is not a count.
func sumOf(counts any, names []string) (float64, bool) {
	var sum float64
	for _, n := range names {
		v := get(counts, n)
		if !isCount(v) {
			return 0, false
		}
		sum += countOf(v)
	}
	return sum, sum <= maxSafeInteger
}

// utf16Less orders strings as JavaScript does (by UTF-16 code units), the order the service sorts reasons in.
func utf16Less(a, b string) bool {
	x, y := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return len(x) < len(y)
}

func reportShape(d map[string]any) *checkFailure {
	_, coverage := d["coverage"].([]any)
	return requireFields(
		"/report_id", isNsID(d["report_id"], "compliance_report"),
		"/issuer", isNonEmptyString(d["issuer"]),
		"/generated_at", isPreviewTimestamp(d["generated_at"]),
		"/schedule_id", has(d, "schedule_id") && (d["schedule_id"] == nil || isNsID(d["schedule_id"], "report_schedule")),
		"/period", isRecord(d["period"]),
		"/decisions", isRecord(d["decisions"]),
		"/denials", isRecord(d["denials"]),
		"/approvals", isRecord(d["approvals"]),
		"/revocations", isRecord(d["revocations"]),
		"/coverage", coverage,
	)
}

func reportPeriod(d map[string]any) *checkFailure {
	start, ok := previewInstant(get(d["period"], "start"))
	if !ok {
		return failCheck("malformed_document", "/period/start")
	}
	end, ok := previewInstant(get(d["period"], "end"))
	if !ok {
		return failCheck("malformed_document", "/period/end")
	}
	if !start.Before(end) {
		return failCheck("period_invalid", "/period/end")
	}
	if generated, ok := previewInstant(d["generated_at"]); ok && generated.Before(end) {
		return failCheck("period_invalid", "/generated_at")
	}
	every := get(d["period"], "every")
	scheduled := d["schedule_id"] != nil
	if scheduled != isNonEmptyString(every) || (!scheduled && every != nil) {
		return failCheck("period_invalid", "/period/every")
	}
	return nil
}

type reportAmount struct{ amount, count float64 }

func reportAmounts(list any, pointer string) (map[string]reportAmount, *checkFailure) {
	entries, ok := list.([]any)
	if !ok {
		return nil, failCheck("malformed_document", pointer)
	}
	out := map[string]reportAmount{}
	last := ""
	for i, e := range entries {
		at := fmt.Sprintf("%s/%d", pointer, i)
		currency, ok := get(e, "currency").(string)
		if !ok || !reportCurrency.MatchString(currency) || !isCount(get(e, "amount_minor")) || !isCount(get(e, "count")) {
			return nil, failCheck("malformed_document", at)
		}
		if currency <= last {
			return nil, failCheck("totals_mismatch", at+"/currency")
		}
		last = currency
		out[currency] = reportAmount{countOf(get(e, "amount_minor")), countOf(get(e, "count"))}
	}
	return out, nil
}

func reportDecisionTotals(d map[string]any) *checkFailure {
	section := d["decisions"]
	total := get(section, "total")
	if !isCount(total) {
		return failCheck("malformed_document", "/decisions/total")
	}
	byDecision, ok := sumOf(get(section, "by_decision"), reportDecisions)
	if !ok {
		return failCheck("malformed_document", "/decisions/by_decision")
	}
	byOutcome, ok := sumOf(get(section, "by_outcome"), reportOutcomes)
	if !ok {
		return failCheck("malformed_document", "/decisions/by_outcome")
	}
	if byDecision != countOf(total) {
		return failCheck("totals_mismatch", "/decisions/by_decision")
	}
	if byOutcome != countOf(total) {
		return failCheck("totals_mismatch", "/decisions/by_outcome")
	}
	allowed, f := reportAmounts(get(section, "allowed_amounts"), "/decisions/allowed_amounts")
	if f != nil {
		return f
	}
	executed, f := reportAmounts(get(section, "executed_amounts"), "/decisions/executed_amounts")
	if f != nil {
		return f
	}
	var allowedCount, executedCount float64
	for _, a := range allowed {
		allowedCount += a.count
	}
	for _, e := range executed {
		executedCount += e.count
	}
	if allowedCount > countOf(get(get(section, "by_decision"), "allow_with_constraints")) {
		return failCheck("totals_mismatch", "/decisions/allowed_amounts")
	}
	if executedCount > countOf(get(get(section, "by_outcome"), "executed")) {
		return failCheck("totals_mismatch", "/decisions/executed_amounts")
	}
	for currency, e := range executed {
		of, ok := allowed[currency]
		if !ok || e.count > of.count || e.amount > of.amount {
			return failCheck("totals_mismatch", "/decisions/executed_amounts ("+currency+")")
		}
	}
	return nil
}

func reportDenials(d map[string]any) *checkFailure {
	total := get(d["denials"], "total")
	reasons, ok := get(d["denials"], "by_reason").([]any)
	if !isCount(total) {
		return failCheck("malformed_document", "/denials/total")
	}
	if !ok {
		return failCheck("malformed_document", "/denials/by_reason")
	}
	deny := get(get(d["decisions"], "by_decision"), "deny")
	if !isCount(deny) || countOf(deny) != countOf(total) {
		return failCheck("totals_mismatch", "/denials/total")
	}
	seen := map[string]bool{}
	var sum float64
	prevReason, prevCount, first := "", 0.0, true
	for i, e := range reasons {
		at := fmt.Sprintf("/denials/by_reason/%d", i)
		reason, ok := get(e, "reason").(string)
		if !ok || reason == "" || !isCount(get(e, "count")) {
			return failCheck("malformed_document", at)
		}
		count := countOf(get(e, "count"))
		if seen[reason] {
			return failCheck("totals_mismatch", at+"/reason")
		}
		// most frequent first, then by reason
		if !first && (count > prevCount || (count == prevCount && utf16Less(reason, prevReason))) {
			return failCheck("totals_mismatch", at)
		}
		seen[reason] = true
		sum += count
		prevReason, prevCount, first = reason, count, false
	}
	if sum != countOf(total) {
		return failCheck("totals_mismatch", "/denials/by_reason")
	}
	return nil
}

func reportApprovals(d map[string]any) *checkFailure {
	total := get(d["approvals"], "total")
	if !isCount(total) {
		return failCheck("malformed_document", "/approvals/total")
	}
	sum, ok := sumOf(get(d["approvals"], "by_status"), reportApprovalStatuses)
	if !ok {
		return failCheck("malformed_document", "/approvals/by_status")
	}
	if sum != countOf(total) {
		return failCheck("totals_mismatch", "/approvals/by_status")
	}
	return nil
}

func reportRevocations(d map[string]any) *checkFailure {
	grants := get(d["revocations"], "grants_revoked")
	operations := get(d["revocations"], "revoke_operations")
	if !isCount(grants) {
		return failCheck("malformed_document", "/revocations/grants_revoked")
	}
	if !isCount(operations) {
		return failCheck("malformed_document", "/revocations/revoke_operations")
	}
	if countOf(operations) > countOf(grants) {
		return failCheck("totals_mismatch", "/revocations/revoke_operations")
	}
	return nil
}

func reportFramework(entry any, at string) *checkFailure {
	packs := get(entry, "evidence_packs")
	inPeriod, projected := get(packs, "in_period"), get(packs, "projected")
	if !isCount(inPeriod) || !isCount(projected) {
		return failCheck("malformed_document", at+"/evidence_packs")
	}
	if countOf(projected) > countOf(inPeriod) {
		return failCheck("totals_mismatch", at+"/evidence_packs/projected")
	}
	controls, ok := get(entry, "controls").([]any)
	if !ok {
		return failCheck("malformed_document", at+"/controls")
	}
	counted := map[string]float64{}
	for _, s := range reportControlStatuses {
		counted[s] = 0
	}
	for i, c := range controls {
		cat := fmt.Sprintf("%s/controls/%d", at, i)
		status, ok := get(c, "status").(string)
		if _, known := counted[status]; !ok || !known {
			return failCheck("malformed_document", cat+"/status")
		}
		applicable, satisfying := get(get(c, "packs"), "applicable"), get(get(c, "packs"), "satisfying")
		if !isCount(applicable) || !isCount(satisfying) {
			return failCheck("malformed_document", cat+"/packs")
		}
		if countOf(satisfying) > countOf(applicable) || countOf(applicable) > countOf(projected) {
			return failCheck("totals_mismatch", cat+"/packs")
		}
		_, hasReason := get(c, "reason").(string)
		if (status == "satisfied") == hasReason {
			return failCheck("totals_mismatch", cat+"/reason")
		}
		counted[status]++
	}
	for _, s := range reportControlStatuses {
		stated := get(get(entry, "summary"), s)
		if !isCount(stated) {
			return failCheck("malformed_document", at+"/summary/"+s)
		}
		if countOf(stated) != counted[s] {
			return failCheck("totals_mismatch", at+"/summary/"+s)
		}
	}
	return nil
}

func reportCoverage(d map[string]any) *checkFailure {
	entries, ok := d["coverage"].([]any)
	if !ok {
		return failCheck("malformed_document", "/coverage")
	}
	frameworks := map[string]bool{}
	for i, e := range entries {
		at := fmt.Sprintf("/coverage/%d", i)
		framework, ok := get(e, "framework").(string)
		if !ok || framework == "" {
			return failCheck("malformed_document", at)
		}
		if frameworks[framework] {
			return failCheck("totals_mismatch", at+"/framework")
		}
		frameworks[framework] = true
		if f := reportFramework(e, at); f != nil {
			return f
		}
	}
	return nil
}

// VerifyComplianceReport verifies a signed ns.compliance_report.v1 against the caller's keys and its arithmetic.
func VerifyComplianceReport(ctx context.Context, report any, keys KeySource) PreviewVerification {
	return verifyPreviewDocument(ctx, report, keys, ComplianceReportSchema, []documentCheck{
		{"shape", reportShape}, {"period", reportPeriod}, {"decisions", reportDecisionTotals}, {"denials", reportDenials},
		{"approvals", reportApprovals}, {"revocations", reportRevocations}, {"coverage", reportCoverage},
	})
}
