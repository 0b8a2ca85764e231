/**
 * The reference connector catalogue (CONTRACT section 15): one `ns.connector_manifest.v1` JSON file per connector
 * under packages/server/connectors/<family>/<name>.json, shipped with the package and read once per process.
 * Fail closed: a file that is not a manifest of its own path, or that breaks a risk rule (core/connectors), stops
 * the catalogue from loading at all, so the service never enforces half a catalogue.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { findManifestRuleViolations, type ConnectorManifest } from '@aar/core';

/** src/services/connectors and dist/services/connectors both sit three levels below the package root */
export const CONNECTORS_DIR = fileURLToPath(new URL('../../../connectors/', import.meta.url));

let loaded: readonly ConnectorManifest[] | undefined;
let byId: ReadonlyMap<string, ConnectorManifest> | undefined;

/** Every manifest, ordered by `connector_id`. Frozen: callers share one copy. */
export function connectorCatalogue(): readonly ConnectorManifest[] {
  if (loaded === undefined) {
    loaded = loadCatalogue(CONNECTORS_DIR);
    byId = new Map(loaded.map((m) => [m.connector_id, m]));
  }
  return loaded;
}

export function findConnector(connectorId: string): ConnectorManifest | undefined {
  connectorCatalogue();
  return byId?.get(connectorId);
}

export function loadCatalogue(dir: string): readonly ConnectorManifest[] {
  const out: ConnectorManifest[] = [];
  for (const family of readdirSync(dir, { withFileTypes: true })) {
    if (!family.isDirectory()) continue;
    for (const file of readdirSync(join(dir, family.name)).filter((f) => f.endsWith('.json'))) {
      const path = join(dir, family.name, file);
      const manifest = JSON.parse(readFileSync(path, 'utf8')) as ConnectorManifest;
      const expectedId = `ns:connector:${family.name}:${file.slice(0, -'.json'.length)}`;
      if (manifest.schema_version !== 'ns.connector_manifest.v1' || manifest.connector_id !== expectedId) {
        throw new Error(`connector catalogue: ${path} is not the manifest of \`${expectedId}\``);
      }
      const violations = findManifestRuleViolations(manifest);
      if (violations.length > 0) {
        const list = violations.map((v) => `${v.path} ${v.message}`).join('; ');
        throw new Error(`connector catalogue: ${path} breaks the manifest rules: ${list}`);
      }
      out.push(deepFreeze(manifest));
    }
  }
  return Object.freeze(out.sort((a, b) => (a.connector_id < b.connector_id ? -1 : 1)));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
