/**
 * What a page says when an opt-in capability (CONTRACT section 22) refuses it: 403 `capability_not_enabled` (the
 * deployment has not switched it on, `AAR_OPT_IN`) or 403 `scope_missing` (it is on, but this token was not granted
 * the scope). Both are said plainly with what to do, since neither is fixed by signing in with another role: scopes
 * are granted explicitly, admin included. Any other error is the ordinary error message.
 */
import { ApiError } from '../api-client.ts';
import { ErrorMessage } from './load-state.tsx';

export function capabilityRefusal(error: Error | undefined): 'capability_not_enabled' | 'scope_missing' | undefined {
  if (!(error instanceof ApiError) || error.status !== 403) return undefined;
  return error.code === 'capability_not_enabled' || error.code === 'scope_missing' ? error.code : undefined;
}

export function CapabilityNotice({
  error,
  capability,
  scope,
  what,
}: {
  error: Error;
  /** the capability's name in `AAR_OPT_IN`, e.g. `reports` */
  capability: string;
  /** the scope this page reads with, e.g. `reports.read` */
  scope: string;
  /** what the page shows, in words ("Compliance reports") */
  what: string;
}) {
  const refusal = capabilityRefusal(error);
  if (refusal === 'capability_not_enabled') {
    return (
      <div class="notice" role="alert" data-testid="capability-off">
        <p>
          <strong>{what} are not enabled on this deployment.</strong> They are an opt-in preview capability: an operator
          switches them on by starting the service with <code>AAR_OPT_IN={capability}</code> (a comma list when other
          capabilities are on too).
        </p>
      </div>
    );
  }
  if (refusal === 'scope_missing') {
    return (
      <div class="notice" role="alert" data-testid="scope-missing">
        <p>
          <strong>This token may not read {what.toLowerCase()}.</strong> The capability is on, but the token was not
          granted the <code>{scope}</code> scope. Scopes are granted explicitly to each token, admin tokens included:
          ask an administrator for a token made with <code>aar tokens create --scopes {scope}</code>.
        </p>
        {error instanceof ApiError && error.detail ? <p class="muted">The service said: {error.detail}</p> : null}
      </div>
    );
  }
  return <ErrorMessage error={error} />;
}
