package aar

// EngineVersion is the version of core's decide this port follows.
const EngineVersion = "aar-decide/1.5.0"

// Decisions.
const (
	DecisionAllow           = "allow_with_constraints"
	DecisionRequireApproval = "require_approval"
	DecisionDeny            = "deny"
)

// CheckOrder is the order decide runs its checks (CONTRACT section 3, steps 1-8).
var CheckOrder = []string{"payload", "entities", "authority", "chain", "merchant", "amount", "risk", "approval"}

// ReasonCodeInfo says which decision a reason code carries and which check names it.
type ReasonCodeInfo struct {
	Decision string
	Check    string
}

// ReasonCodes is the closed list of CONTRACT section 3.
var ReasonCodes = map[string]ReasonCodeInfo{
	"payload_signature_missing":         {DecisionDeny, "payload"},
	"payload_signature_invalid":         {DecisionDeny, "payload"},
	"payload_stale":                     {DecisionDeny, "payload"},
	"payload_replayed":                  {DecisionDeny, "payload"},
	"principal_inactive":                {DecisionDeny, "entities"},
	"actor_inactive":                    {DecisionDeny, "entities"},
	"instrument_inactive":               {DecisionDeny, "entities"},
	"instrument_not_bound":              {DecisionDeny, "entities"},
	"agent_metadata_mismatch":           {DecisionDeny, "entities"},
	"authority_not_found":               {DecisionDeny, "authority"},
	"capability_not_granted":            {DecisionDeny, "authority"},
	"authority_revoked":                 {DecisionDeny, "chain"},
	"authority_expired":                 {DecisionDeny, "chain"},
	"delegation_invalid":                {DecisionDeny, "chain"},
	"mandate_revoked":                   {DecisionDeny, "chain"},
	"mandate_expired":                   {DecisionDeny, "chain"},
	"allowance_used":                    {DecisionDeny, "chain"},
	"merchant_unknown":                  {DecisionDeny, "merchant"},
	"merchant_not_allowed":              {DecisionDeny, "merchant"},
	"merchant_category_blocked":         {DecisionDeny, "merchant"},
	"merchant_category_not_allowed":     {DecisionDeny, "merchant"},
	"jurisdiction_not_allowed":          {DecisionDeny, "merchant"},
	"currency_mismatch":                 {DecisionDeny, "amount"},
	"amount_above_agent_threshold":      {DecisionDeny, "amount"},
	"daily_limit_exceeded":              {DecisionDeny, "amount"},
	"budget_exceeded":                   {DecisionDeny, "amount"},
	"risk_state_blocked":                {DecisionDeny, "risk"},
	"risk_state_elevated":               {DecisionRequireApproval, "risk"},
	"amount_above_approval_threshold":   {DecisionRequireApproval, "approval"},
	"approval_pending":                  {DecisionRequireApproval, "approval"},
	"approval_rejected":                 {DecisionDeny, "approval"},
	"approval_expired":                  {DecisionDeny, "approval"},
	"approval_mismatch":                 {DecisionDeny, "approval"},
	"approved_by_principal":             {DecisionAllow, "conclusion"},
	"scope_within_attenuated_authority": {DecisionAllow, "conclusion"},
}

// MinorMoney is an amount in integer minor units (2 decimals EUR, 0 JPY, 3 BHD).
type MinorMoney struct {
	Minor    int64  `json:"minor"`
	Currency string `json:"currency"`
}

// Obligation binds an allowed caller: `audit.emit` always, `basket_hash_binding` when a basket is bound, and the
// obligations of matched rules (aar-decide/1.3.0), whose members are the rule's own (Members holds them all).
type Obligation struct {
	Type       string `json:"type"`
	BasketHash string `json:"basket_hash,omitempty"`
	// Members is a rule obligation as the rule pack states it (`{ type, ... }`); nil for the built-in obligations.
	Members map[string]any `json:"-"`
}

// ruleObligation is a rule's obligation as decide adds it.
func ruleObligation(item any) Obligation {
	members, _ := item.(map[string]any)
	typ, _ := get(item, "type").(string)
	return Obligation{Type: typ, Members: members}
}

// jsonValue is the obligation as generic JSON.
func (o Obligation) jsonValue() any {
	if o.Members != nil {
		return o.Members
	}
	out := map[string]any{"type": o.Type}
	if o.BasketHash != "" {
		out["basket_hash"] = o.BasketHash
	}
	return out
}

// MarshalJSON writes a rule obligation's own members, a built-in one's type and basket hash.
func (o Obligation) MarshalJSON() ([]byte, error) { return Canonicalize(o.jsonValue()) }

// CheckDiagnostic is one check's outcome: pass, fail or skip.
type CheckDiagnostic struct {
	Check   string `json:"check"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// CandidateOutcome is what one covering chain alone would have decided (aar-decide/1.2.0).
type CandidateOutcome struct {
	GrantID  *string `json:"grant_id"`
	Decision string  `json:"decision"`
	Reason   string  `json:"reason"`
}

// DecisionDiagnostics says which check decided and why.
type DecisionDiagnostics struct {
	Checks          []CheckDiagnostic  `json:"checks"`
	GrantID         *string            `json:"grant_id,omitempty"`
	Candidates      []CandidateOutcome `json:"candidates,omitempty"`
	ChosenCandidate *int               `json:"chosen_candidate,omitempty"`
	// Rules lists the matched rules of enforce packs whenever the snapshot's rule packs were evaluated
	// (aar-decide/1.3.0); nil when they were not.
	Rules *[]RuleDiagnostic `json:"rules,omitempty"`
}

// Reservation is what the server reserves on every grant of the deciding chain for an allowed execute.
type Reservation struct {
	Amount   MinorMoney `json:"amount"`
	GrantIDs []string   `json:"grant_ids"`
}

// DecisionResult is decide's answer.
type DecisionResult struct {
	Decision       string              `json:"decision"`
	Reason         string              `json:"reason"`
	Obligations    []Obligation        `json:"obligations"`
	StopConditions []string            `json:"stop_conditions"`
	Diagnostics    DecisionDiagnostics `json:"diagnostics"`
	Reservation    *Reservation        `json:"reservation,omitempty"`
	// Shadow is each shadow pack's would-be outcome, when rule packs were evaluated (aar-decide/1.3.0).
	Shadow []ShadowOutcome `json:"shadow,omitempty"`
	// EffectiveScope is the intersection of the deciding chain's scopes (minor units), once its chain check passed.
	EffectiveScope map[string]any `json:"effective_scope,omitempty"`
}

// AllowStopConditions are the stop conditions of every allow.
var AllowStopConditions = []string{"actor.stop_signal", "delegation.revoked", "scope.attenuated"}

// DecisionRequest is the typed form of decide's request (core's decide/types.ts); Decide converts it to JSON.
type DecisionRequest struct {
	ActorEntityID     string         `json:"actor_entity_id"`
	PrincipalEntityID string         `json:"principal_entity_id"`
	Subject           string         `json:"subject"`
	Action            string         `json:"action"`
	MerchantID        string         `json:"merchant_id,omitempty"`
	Amount            *MinorMoney    `json:"amount,omitempty"`
	InstrumentID      string         `json:"instrument_id,omitempty"`
	Basket            map[string]any `json:"basket,omitempty"`
	BasketHash        string         `json:"basket_hash,omitempty"`
	PolicyDecisionID  string         `json:"policy_decision_id,omitempty"`
	Context           map[string]any `json:"context,omitempty"`
}
