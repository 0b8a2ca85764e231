/**
 * The policy content shipped with the release (packages/server/policy/{dictionaries,rule-packs,sector-packs}/*.json):
 * data of the release, like the connector manifests, read once per folder. A missing folder is an empty one. A file
 * that is not a JSON object is reported, never half-read (seed-policy-content.ts refuses it with the reason).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { AppContext } from '../../app-context.ts';

/** From src/services/policy/ and dist/services/policy/ alike: the package's own policy/ folder. */
export const POLICY_FOLDER = new URL('../../../policy/', import.meta.url);

export const SHIPPED_KINDS = {
  dictionary: 'dictionaries',
  rule_pack: 'rule-packs',
  sector_pack: 'sector-packs',
} as const;
export type ShippedKind = keyof typeof SHIPPED_KINDS;

export interface ShippedFile {
  /** `<folder>/<file>` for messages */
  file: string;
  document: Record<string, unknown> | undefined;
  /** why it could not be read */
  problem?: string;
}

const cache = new Map<string, ReadonlyMap<ShippedKind, readonly ShippedFile[]>>();

export function readShippedContent(folder: URL = POLICY_FOLDER): ReadonlyMap<ShippedKind, readonly ShippedFile[]> {
  const hit = cache.get(folder.href);
  if (hit) return hit;
  const out = new Map<ShippedKind, ShippedFile[]>();
  for (const [kind, sub] of Object.entries(SHIPPED_KINDS) as Array<[ShippedKind, string]>) {
    const dir = new URL(`${sub}/`, folder);
    const files = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith('.json'))
          .sort()
      : [];
    out.set(
      kind,
      files.map((f) => {
        const file = `${sub}/${f}`;
        try {
          const value = JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as unknown;
          if (typeof value !== 'object' || value === null || Array.isArray(value)) {
            return { file, document: undefined, problem: 'is not a JSON object' };
          }
          return { file, document: value as Record<string, unknown> };
        } catch (error) {
          return { file, document: undefined, problem: `is not JSON (${(error as Error).message})` };
        }
      }),
    );
  }
  cache.set(folder.href, out);
  return out;
}

/** Which folder an app's shipped content comes from: the package's, unless a test points it elsewhere. */
const folders = new WeakMap<AppContext, URL>();

export function policyFolderOf(ctx: AppContext): URL {
  return folders.get(ctx) ?? POLICY_FOLDER;
}

/** Tests only: serve the shipped content of another folder (then seed it with seedPolicyContent). */
export function usePolicyFolder(ctx: AppContext, folder: URL): void {
  folders.set(ctx, folder);
}
