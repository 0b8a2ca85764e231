/** A lifecycle state in words and a tone: active is calm, anything stopped is marked. */
const TONES: Record<string, string> = {
  active: 'allow',
  enabled: 'allow',
  approved: 'allow',
  consumed: 'neutral',
  succeeded: 'allow',
  pending: 'approval',
  failing: 'approval',
  suspended: 'approval',
  elevated: 'approval',
  revoked: 'deny',
  rejected: 'deny',
  expired: 'neutral',
  disabled: 'deny',
  failed: 'deny',
  tombstoned: 'neutral',
};

export function StateBadge({ state }: { state: string }) {
  return <span class={`badge badge-${TONES[state] ?? 'neutral'}`}>{state}</span>;
}
