/**
 * The decision map drawn as the spec's chain: principal, delegation, actor, capability, scope, state, policy, then
 * the decision. An ordered list, so a screen reader reads the chain in its order; the node a refusal or an approval
 * points at is marked in words ("stopped here"), not by colour alone. Node labels come from the map itself (core's
 * buildDecisionMap), never recomposed here.
 */
import { DECISION_MAP_NODE_TYPES, type DecisionMapNode } from '@aar/core';
import { DecisionBadge } from './decision-badge.tsx';
import { decidingNode } from './deciding-node.ts';

const TITLES: Record<string, string> = {
  principal: 'Principal',
  delegation: 'Delegation',
  actor: 'Actor',
  capability: 'Capability',
  scope: 'Scope',
  state: 'State',
  policy: 'Policy',
};

export interface DecisionChainProps {
  nodes: readonly DecisionMapNode[];
  decision: string;
  reason: string;
  /** an id for the caption, unique on the page */
  id: string;
}

export function DecisionChain({ nodes, decision, reason, id }: DecisionChainProps) {
  const stopped = decidingNode(reason);
  const tone = decision === 'deny' ? 'deny' : 'approval';
  // the spec's order, whatever order the document listed them in
  const ordered = DECISION_MAP_NODE_TYPES.map((type) => nodes.find((n) => n.type === type)).filter(
    (n): n is DecisionMapNode => n !== undefined,
  );
  return (
    <figure class="chain" aria-labelledby={`${id}-caption`} data-testid="decision-chain">
      <figcaption id={`${id}-caption`} class="chain-caption">
        Decision map: principal, delegation, actor, capability, scope, state, policy, then the decision
      </figcaption>
      <ol class="chain-list">
        {ordered.map((node) => {
          const here = node.type === stopped;
          return (
            <li key={node.type} class={`chain-node${here ? ` chain-stopped chain-${tone}` : ''}`} data-node={node.type}>
              <span class="chain-type">{TITLES[node.type]}</span>
              <span class="chain-short">{node.short}</span>
              <code class="chain-ref">{node.ref}</code>
              {here && <span class="chain-flag">{decision === 'deny' ? 'Stopped here' : 'Needs approval here'}</span>}
            </li>
          );
        })}
        <li class="chain-node chain-decision" data-node="decision">
          <span class="chain-type">Decision</span>
          <DecisionBadge decision={decision} />
          <code class="chain-ref">{reason}</code>
        </li>
      </ol>
    </figure>
  );
}
