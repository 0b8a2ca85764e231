/**
 * The ceiling of the authorize benchmark: the same Fastify as the service, no plugins, no logger, a JSON body parsed
 * and sent back. Run as a child process: `node --import tsx bench/authorize-http/echo-server.ts` with ECHO_PORT set.
 * What this server costs per request is what any Fastify route costs on this machine before doing any work.
 */
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';

export const ECHO_PATH = '/echo';
export const ECHO_READY_PATH = '/ready';

async function main(): Promise<void> {
  const port = Number(process.env.ECHO_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error('ECHO_PORT must name a port');
  const app = Fastify({ logger: false });
  app.get(ECHO_READY_PATH, async () => ({ ready: true }));
  app.post(ECHO_PATH, async (request) => request.body);
  await app.listen({ host: '127.0.0.1', port });
  const close = () => void app.close().then(() => process.exit(0));
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
