/** Loading and error states of a page section, announced politely to screen readers. */
import type { ComponentChildren } from 'preact';
import { ApiError } from '../api-client.ts';
import type { Loaded } from '../use-api.ts';

export function ErrorMessage({ error }: { error: Error }) {
  const text =
    error instanceof ApiError
      ? error.status === 403
        ? 'This credential may not read this. Sign in with a token of a role that may.'
        : `${error.detail} (${error.code}, HTTP ${error.status})`
      : error.message;
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

export function LoadState<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.error) return <ErrorMessage error={loaded.error} />;
  if (loaded.data === undefined) {
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  }
  return <>{children(loaded.data)}</>;
}
