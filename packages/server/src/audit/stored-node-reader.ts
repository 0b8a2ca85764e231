/**
 * A NodeHashReader over `audit_nodes` rows: every perfect subtree hash of the log is stored on append, so a proof
 * is one SELECT for all the nodes its plan names, whatever the tree size, and no leaf is rehashed.
 * INVARIANT: the caller only names perfect ranges inside [0, size) of a committed (or in-transaction) tree.
 */
import { AarError, decodeBase64, type NodeHashReader, type PerfectRange } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../store/index.ts';

export async function readStoredNodes(
  db: Kysely<Database>,
  ranges: readonly PerfectRange[],
  size: number,
): Promise<NodeHashReader> {
  const wanted = new Map<string, { level: number; idx: number }>();
  for (const { begin, end } of ranges) {
    const width = end - begin;
    const address = { level: Math.round(Math.log2(width)), idx: begin / width };
    wanted.set(`${address.level}:${address.idx}`, address);
  }
  const hashes = new Map<string, Uint8Array>();
  if (wanted.size > 0) {
    const rows = await db
      .selectFrom('audit_nodes')
      .select(['level', 'idx', 'hash'])
      .where((eb) => eb.or([...wanted.values()].map((a) => eb.and([eb('level', '=', a.level), eb('idx', '=', a.idx)]))))
      .execute();
    for (const row of rows) hashes.set(`${row.level}:${Number(row.idx)}`, decodeBase64(row.hash));
  }
  return {
    size,
    perfectSubtreeHash(begin: number, end: number): Uint8Array {
      const width = end - begin;
      const hash = hashes.get(`${Math.round(Math.log2(width))}:${begin / width}`);
      if (!hash) throw new AarError('audit_unavailable', `the audit tree has no stored node for [${begin}, ${end})`);
      return hash;
    },
  };
}
