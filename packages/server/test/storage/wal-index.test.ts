/**
 * The log's length from SQLite's wal-index (store/wal-index.ts): against a real database in WAL mode, where the
 * `-wal` file keeps its size after a restart while the log starts again, and against hand-made headers for what a
 * reader must refuse (a header torn by a concurrent commit, another format, an uninitialised index).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { endianness, tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { logBytesFromWalIndex, WalIndex } from '../../src/store/wal-index.ts';

const FRAME = 4096 + 24;
let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

function walDatabase() {
  const dir = mkdtempSync(join(tmpdir(), 'aar-wal-index-'));
  const file = join(dir, 'db.sqlite');
  const db = new SqliteDatabase(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('create table t (id integer primary key, body text)');
  const index = WalIndex.open(`${file}-shm`)!;
  cleanup = () => {
    db.close();
    index.close(); // after the connection: closing it releases this process's locks on the -shm file
    rmSync(dir, { recursive: true, force: true });
  };
  const insert = db.prepare('insert into t (body) values (?)');
  const write = (rows: number) =>
    db.transaction(() => {
      for (let i = 0; i < rows; i++) insert.run('x'.repeat(2000));
    })();
  return { db, file, index, write };
}

describe('the wal-index reader', () => {
  it('reads the frames SQLite reports for the log, and a restarted log in a file that kept its size', async () => {
    const { db, file, index, write } = walDatabase();
    write(200);
    const [grown] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    expect(grown!.log).toBeGreaterThan(100);
    expect(grown!.checkpointed).toBe(grown!.log);
    expect(await index.logBytes()).toBe(32 + grown!.log * FRAME);
    const fileSize = statSync(`${file}-wal`).size;
    expect(fileSize).toBe(32 + grown!.log * FRAME);

    // fully checkpointed: the next commit restarts the log at its start; the file is not cut (no journal_size_limit)
    write(1);
    const [restarted] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
    expect(restarted!.log).toBeLessThan(5);
    expect(await index.logBytes()).toBe(32 + restarted!.log * FRAME);
    expect(statSync(`${file}-wal`).size).toBe(fileSize);
  });

  it('refuses a torn header, another version, an uninitialised index; decodes a 64 KiB page size', () => {
    const little = endianness() === 'LE';
    const header = (version: number, isInit: number, pageField: number, frames: number) => {
      const one = Buffer.alloc(48);
      if (little) {
        one.writeUInt32LE(version, 0);
        one.writeUInt16LE(pageField, 14);
        one.writeUInt32LE(frames, 16);
      } else {
        one.writeUInt32BE(version, 0);
        one.writeUInt16BE(pageField, 14);
        one.writeUInt32BE(frames, 16);
      }
      one[12] = isInit;
      return one;
    };
    const both = (one: Buffer) => Buffer.concat([one, one]);
    expect(logBytesFromWalIndex(both(header(3007000, 1, 4096, 10)))).toBe(32 + 10 * FRAME);
    expect(logBytesFromWalIndex(both(header(3007000, 1, 1, 2)))).toBe(32 + 2 * (65536 + 24));
    expect(logBytesFromWalIndex(both(header(3007000, 1, 4096, 0)))).toBe(0);
    // a commit between the two copies: the reader cannot tell which is right
    const torn = Buffer.concat([header(3007000, 1, 4096, 11), header(3007000, 1, 4096, 10)]);
    expect(logBytesFromWalIndex(torn)).toBeUndefined();
    expect(logBytesFromWalIndex(both(header(3007001, 1, 4096, 10)))).toBeUndefined();
    expect(logBytesFromWalIndex(both(header(3007000, 0, 4096, 10)))).toBeUndefined();
    expect(logBytesFromWalIndex(header(3007000, 1, 4096, 10))).toBeUndefined();
  });

  it('opens nothing when there is no wal-index', () => {
    expect(WalIndex.open(join(tmpdir(), 'aar-no-such-dir', 'db.sqlite-shm'))).toBeUndefined();
  });
});
