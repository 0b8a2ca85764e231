/**
 * The length of SQLite's write-ahead log, read from its wal-index (the `-shm` file), where the file size cannot tell
 * it: once the log has restarted, SQLite overwrites the `-wal` file from its start and the file keeps its largest size.
 * Written by hand: no library reads this, and better-sqlite3 exposes no `sqlite3_wal_hook`.
 *
 * FORMAT (https://www.sqlite.org/walformat.html, "The WAL-Index Header"): the file starts with two copies of a 48-byte
 * header, in native byte order: iVersion u32 at 0 (3007000), isInit u8 at 12, szPage u16 at 14 (1 means 65536),
 * mxFrame u32 at 16 (the last valid frame of the log). A writer updates the second copy, then the first; a read that
 * finds them unequal raced a commit and is dropped (the caller reads again after the next sync).
 *
 * LOCKS: SQLite holds POSIX advisory locks on the `-shm` file, and closing *any* descriptor of a file releases all of
 * the process's locks on it. So the descriptor opened here is closed only after every connection of this process to
 * the database is closed (open-store.ts closes the store's connection first).
 */
import { closeSync, openSync, read } from 'node:fs';
import { endianness } from 'node:os';

const HEADER_BYTES = 48;
const WAL_INDEX_VERSION = 3007000;
const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

/** The log's length in bytes (header, then page + frame header per frame), or undefined when the header is torn. */
export function logBytesFromWalIndex(header: Buffer): number | undefined {
  if (header.length < 2 * HEADER_BYTES) return undefined;
  const first = header.subarray(0, HEADER_BYTES);
  if (!first.equals(header.subarray(HEADER_BYTES, 2 * HEADER_BYTES))) return undefined;
  const little = endianness() === 'LE';
  const version = little ? first.readUInt32LE(0) : first.readUInt32BE(0);
  if (version !== WAL_INDEX_VERSION || first[12] !== 1) return undefined;
  const rawPage = little ? first.readUInt16LE(14) : first.readUInt16BE(14);
  const pageSize = rawPage === 1 ? 65536 : rawPage;
  const frames = little ? first.readUInt32LE(16) : first.readUInt32BE(16);
  if (frames === 0) return 0;
  return WAL_HEADER_BYTES + frames * (pageSize + FRAME_HEADER_BYTES);
}

export class WalIndex {
  readonly #fd: number;

  private constructor(fd: number) {
    this.#fd = fd;
  }

  /** Opens `file` read-only; undefined when it cannot (then the file size is the only measure of the log). */
  static open(file: string): WalIndex | undefined {
    try {
      return new WalIndex(openSync(file, 'r'));
    } catch {
      return undefined;
    }
  }

  /** The log's current length (libuv's pool reads it); undefined when the read failed or raced a commit. */
  logBytes(): Promise<number | undefined> {
    const header = Buffer.alloc(2 * HEADER_BYTES);
    return new Promise((resolve) => {
      read(this.#fd, header, 0, header.length, 0, (error, bytesRead) =>
        resolve(error || bytesRead < header.length ? undefined : logBytesFromWalIndex(header)),
      );
    });
  }

  /** Only once no connection of this process has the database open (see LOCKS). */
  close(): void {
    closeSync(this.#fd);
  }
}
