import { v7 as uuidv7 } from 'uuid';
import type { Clock } from './clock.ts';
import type { AppConfig } from './config.ts';
import type { KeyRing } from './keys/key-ring.ts';
import type { HostResolver } from './services/webhooks/target-guard.ts';
import type { Store } from './store/index.ts';
import type { WriteQueue } from './store/write-queue.ts';

/** Everything a route or service needs, passed explicitly: no module-level singletons. */
export interface AppContext {
  readonly config: AppConfig;
  readonly store: Store;
  readonly clock: Clock;
  readonly keys: KeyRing;
  /** group commit: every state change runs through it, with its events and audit entries */
  readonly writer: WriteQueue;
  /** mints UUIDv7s (RFC 9562); tests may make this deterministic */
  readonly newUuid: () => string;
  /** resolves webhook target names (SSRF guard); the system resolver when absent; tests inject their own */
  readonly resolveHost?: HostResolver;
}

export const defaultUuid = (): string => uuidv7();
