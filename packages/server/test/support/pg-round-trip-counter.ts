/**
 * A TCP proxy in front of PostgreSQL that counts round trips: how many times a client sent something after every
 * query it had sent was answered (PostgreSQL's ReadyForQuery). Queries a client writes without waiting for the
 * answers before them (node-postgres' pipeline mode) share one round trip. It reads the protocol's message frames
 * (a type byte and a length), never their contents. Written by hand: no library counts this.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface RoundTripCounter {
  /** the URL to connect to instead of `upstream` (same user, database and options) */
  url: string;
  roundTrips(): number;
  reset(): void;
  close(): Promise<void>;
}

/** frontend messages that ask for an answer: a simple query, or the Sync that ends an extended one */
const ANSWERED = new Set(['Q', 'S']);
const READY_FOR_QUERY = 'Z';

/** Splits a byte stream into typed frames (1-byte type, 4-byte big-endian length that counts itself). */
function frameReader(onFrame: (type: string) => void, untypedFirst: boolean): (chunk: Buffer) => void {
  let buffered = Buffer.alloc(0);
  let startup = untypedFirst;
  return (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      if (startup) {
        // the startup message has no type byte: a length, then its body
        if (buffered.length < 4) return;
        const length = buffered.readUInt32BE(0);
        if (buffered.length < length) return;
        buffered = buffered.subarray(length);
        startup = false;
        continue;
      }
      if (buffered.length < 5) return;
      const length = buffered.readUInt32BE(1);
      if (buffered.length < 1 + length) return;
      onFrame(String.fromCharCode(buffered[0]!));
      buffered = buffered.subarray(1 + length);
    }
  };
}

export async function startRoundTripCounter(upstream: string): Promise<RoundTripCounter> {
  const target = new URL(upstream);
  let roundTrips = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const server = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(server);
    // as node-postgres and PostgreSQL do: a pipelined second query or answer must not wait for the first's ACK
    client.setNoDelay(true);
    server.setNoDelay(true);
    // per connection: queries sent and not yet answered, and whether the current flight was counted
    let outstanding = 0;
    let inFlight = false;
    let ready = false; // the first ReadyForQuery ends the start-up exchange, which is not counted
    const fromClient = frameReader((type) => {
      if (!ready) return;
      if (!inFlight) {
        inFlight = true;
        roundTrips += 1;
      }
      if (ANSWERED.has(type)) outstanding += 1;
    }, true);
    const fromServer = frameReader((type) => {
      if (type !== READY_FOR_QUERY) return;
      if (!ready) {
        ready = true;
        return;
      }
      outstanding -= 1;
      if (outstanding === 0) inFlight = false;
    }, false);
    client.on('data', (chunk: Buffer) => {
      fromClient(chunk);
      server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      fromServer(chunk);
      client.write(chunk);
    });
    const closeBoth = () => {
      client.destroy();
      server.destroy();
      sockets.delete(client);
      sockets.delete(server);
    };
    client.on('close', closeBoth).on('error', closeBoth);
    server.on('close', closeBoth).on('error', closeBoth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy did not listen on TCP');
  const url = new URL(upstream);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
    roundTrips: () => roundTrips,
    reset: () => {
      roundTrips = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
