/** What `verifyDelegationChain` reports: a closed list of problem codes, each naming the link and field it is about. */

export type ChainProblemCode =
  /** not a `ns.delegation_chain.v1` document, or no links, or `now` is not a timestamp */
  | 'malformed_chain'
  /** more links than the verifier accepts; nothing else was checked */
  | 'too_many_links'
  /** the document's own service signature (over the states and keys) does not verify */
  | 'document_signature_invalid'
  /** `leaf_grant_id`, `root_grant_id` or `delegation_id` do not name the chain's ends */
  | 'leaf_mismatch'
  /** a link is not a well-formed `ns.authority_grant.v1` (the field says which member) */
  | 'malformed_link'
  /** the service signature of a link does not verify against the trusted keys */
  | 'link_signature_invalid'
  /** the first link has a parent */
  | 'not_a_root'
  /** a link's `parent_grant_id` is not the link before it (reordered, cut or spliced chains) */
  | 'wrong_parent'
  /** a grant appears twice */
  | 'repeated_link'
  /** a link's `depth` is not its position */
  | 'wrong_depth'
  /** a link was issued before its parent */
  | 'issued_before_parent'
  /** an entity appears twice on the path principal -> actors (a delegation cycle) */
  | 'entity_cycle'
  | 'principal_mismatch'
  | 'instrument_mismatch'
  | 'capability_wider'
  /** a scope field is wider than the parent's (the field names it) */
  | 'scope_wider'
  /** the parent's effective scope does not say `may_delegate: true` */
  | 'not_delegable'
  /** an ancestor's `max_delegation_depth` is exceeded */
  | 'too_deep'
  /** `delegator_entity_id` is not the parent's actor */
  | 'delegator_mismatch'
  /** the delegator's signature over its statement does not verify with the key the link carries */
  | 'delegator_signature_invalid'
  /** the delegator key differs from its thumbprint or from the chain's `keys.delegators` entry */
  | 'delegator_key_mismatch'
  /** the delegator's statement authorises something else than this link (another child, parent or scope) */
  | 'statement_mismatch'
  /** the link's `valid_until` is at or before `now` */
  | 'expired'
  /** the signed document says the link was revoked at `as_of` */
  | 'revoked';

export interface ChainProblem {
  code: ChainProblemCode;
  /** the link's position, root = 0; null for the document as a whole */
  index: number | null;
  /** the link's grant id when it has one */
  grant_id: string | null;
  /** JSON pointer into the link (or the document when `index` is null), e.g. `/scope/max_daily_amount` */
  field: string | null;
  message: string;
}
