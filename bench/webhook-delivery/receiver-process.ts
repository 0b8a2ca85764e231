/**
 * The webhook bench's receiver in a process of its own (node:http on 127.0.0.1 answering 204, as the in-process one),
 * so the worker's preparation of the next attempt can overlap the receiver's handling of the current one, as it does
 * with any real receiver. It counts what it received; `count()` asks it over IPC. Killed by `close()`, and with
 * the bench's process at the latest (it exits when its IPC channel closes).
 */
import { fork, type ChildProcess } from 'node:child_process';

const RECEIVER_SOURCE = `
const { createServer } = require('node:http');
let received = 0;
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => { received += 1; res.writeHead(204).end(); });
});
process.on('message', (m) => { if (m === 'count') process.send({ count: received }); });
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
`;

export interface ReceiverProcess {
  url: string;
  count(): Promise<number>;
  close(): void;
}

export async function startReceiverProcess(): Promise<ReceiverProcess> {
  const child: ChildProcess = fork('-e', [RECEIVER_SOURCE], {
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the receiver process exited (${code})`)));
    child.once('message', (m) => resolve((m as { port: number }).port));
  });
  child.removeAllListeners('exit');
  return {
    url: `http://127.0.0.1:${port}/hook`,
    count: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve((m as { count: number }).count));
        child.send('count');
      }),
    close: () => {
      child.kill();
    },
  };
}
