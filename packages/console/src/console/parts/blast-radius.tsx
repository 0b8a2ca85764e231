/**
 * What revoking a grant would cut, read before the revoke is confirmed (GET /v1/graph/grants/{id}/blast-radius): the
 * grants (it and its active subtree), the mandates bound to them, the agents that lose authority and the card tokens
 * they could spend on. Nothing is revoked by reading it. Attacker assumption: untrusted JSON; a list is read from
 * ids or from objects carrying them, anything else is left out.
 */
import { Fragment } from 'preact';
import { shortId } from './format.ts';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export interface BlastRadius {
  grants: string[];
  mandates: string[];
  agents: string[];
  card_tokens: string[];
  /** the lists hold part of the radius only (a next page, or deeper than `max_depth`); `counts` are the totals */
  truncated: boolean;
  /** the grant is revoked already: a revoke would cut nothing */
  already_revoked: boolean;
  counts: { grants: number; mandates: number; agents: number; card_tokens: number };
}

const KINDS = ['grants', 'mandates', 'agents', 'card_tokens'] as const;
type Kind = (typeof KINDS)[number];

const ID_MEMBERS: Record<Kind, string[]> = {
  grants: ['grant_id'],
  mandates: ['mandate_id'],
  agents: ['actor_entity_id', 'entity_id', 'agent_entity_id'],
  card_tokens: ['card_token_id', 'resource_id'],
};

function ids(value: unknown, kind: Kind): string[] {
  if (!Array.isArray(value)) return [];
  const out = value.flatMap((v) => {
    if (typeof v === 'string') return [v];
    if (!isRecord(v)) return [];
    for (const name of [...ID_MEMBERS[kind], 'id']) if (str(v[name])) return [v[name] as string];
    return [];
  });
  return [...new Set(out)];
}

export function readBlastRadius(answer: unknown): BlastRadius {
  const root = isRecord(answer) ? answer : {};
  const body = isRecord(root.blast_radius)
    ? (root.blast_radius as Json)
    : isRecord(root.cut)
      ? (root.cut as Json)
      : root;
  const counts = isRecord(body.counts) ? (body.counts as Json) : isRecord(root.counts) ? (root.counts as Json) : {};
  // docs/graph.md: the cut grants are the paged `items`; agents, card tokens and mandates are summary lists
  const lists = Object.fromEntries(
    KINDS.map((k) => [k, ids(k === 'grants' ? (body.items ?? body.grants) : body[k], k)]),
  ) as Record<Kind, string[]>;
  const count = (k: Kind) => {
    const given = counts[k] ?? body[`${k}_count`] ?? body[`${k.replace(/s$/, '')}_count`];
    return typeof given === 'number' && Number.isSafeInteger(given) ? given : lists[k].length;
  };
  return {
    ...lists,
    truncated: body.complete === false || str(body.next_cursor) !== undefined,
    already_revoked: body.already_revoked === true,
    counts: {
      grants: count('grants'),
      mandates: count('mandates'),
      agents: count('agents'),
      card_tokens: count('card_tokens'),
    },
  };
}

const WORDS: Record<Kind, [string, string]> = {
  grants: ['grant', 'grants'],
  mandates: ['mandate', 'mandates'],
  agents: ['agent', 'agents'],
  card_tokens: ['card token', 'card tokens'],
};

const plural = (n: number, kind: Kind) => `${n} ${WORDS[kind][n === 1 ? 0 : 1]}`;

/** At most this many ids are listed per kind; the count says the rest. */
const SHOWN = 20;

export function BlastRadiusView({ radius }: { radius: BlastRadius }) {
  if (radius.already_revoked) {
    return (
      <p class="blast-radius muted" data-testid="blast-radius">
        It is revoked already: a revoke would cut nothing more.
      </p>
    );
  }
  return (
    <div class="blast-radius" data-testid="blast-radius">
      <p>
        Revoking it would cut <strong>{plural(radius.counts.grants, 'grants')}</strong>,{' '}
        <strong>{plural(radius.counts.mandates, 'mandates')}</strong>, the authority of{' '}
        <strong>{plural(radius.counts.agents, 'agents')}</strong> and their spending on{' '}
        <strong>{plural(radius.counts.card_tokens, 'card_tokens')}</strong>.
      </p>
      <dl class="facts">
        {KINDS.filter((k) => radius[k].length > 0).map((k) => (
          <Fragment key={k}>
            <dt>{WORDS[k][1][0]!.toUpperCase() + WORDS[k][1].slice(1)}</dt>
            <dd data-cut={k}>
              {radius[k].slice(0, SHOWN).map((id, i) => (
                <span key={id} title={id}>
                  {i > 0 ? ', ' : ''}
                  {k === 'grants' || k === 'mandates' ? <code>{id}</code> : shortId(id)}
                </span>
              ))}
              {radius[k].length > SHOWN || radius.counts[k] > radius[k].length
                ? ` and ${Math.max(radius.counts[k], radius[k].length) - Math.min(SHOWN, radius[k].length)} more`
                : ''}
            </dd>
          </Fragment>
        ))}
      </dl>
      {radius.truncated && <p class="muted">The service listed part of it only; the counts are its totals.</p>}
    </div>
  );
}
