/**
 * The web console (`/console/`) and the purchase simulator (`/simulator/`): static files built by packages/console
 * (CONTRACT section 17), served on the API's own origin so the console calls the API without CORS. Every file is a
 * public route (the pages hold no data; the console asks for a token and sends it to the API only), one exact route
 * per file found at start-up: no wildcard, so unknown paths keep the API's problem+json 404.
 * Headers: a strict Content-Security-Policy (scripts, styles and requests only from this origin, no framing, no
 * inline script), no referrer (a console URL may carry ids), and hashed assets cached for a year.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** The folder holding console/index.html and simulator/index.html, or undefined when the console is not built. */
export function findConsoleDir(configured: string | undefined): string | undefined {
  let dir = configured;
  if (dir === undefined) {
    try {
      dir = join(dirname(createRequire(import.meta.url).resolve('@aar/console/package.json')), 'dist');
    } catch {
      return undefined;
    }
  }
  return existsSync(join(dir, 'console', 'index.html')) && existsSync(join(dir, 'simulator', 'index.html'))
    ? dir
    : undefined;
}

export async function consoleRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const root = findConsoleDir(ctx.config.consoleDir);
  if (root === undefined) {
    app.log.warn('the web console is not built (npm run build): /console/ and /simulator/ are not served');
    return;
  }
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
    });
    const assets = join(root, 'assets') + sep;
    await scope.register(fastifyStatic, {
      root,
      prefix: '/',
      wildcard: false,
      redirect: true,
      index: ['index.html'],
      globIgnore: ['**/*.map'],
      decorateReply: false,
      setHeaders: (reply, path) => {
        reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
        reply.header('x-content-type-options', 'nosniff');
        reply.header('referrer-policy', 'no-referrer');
        // asset names carry a content hash; the pages themselves must be revalidated to pick up a new build
        reply.header('cache-control', path.startsWith(assets) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  });
}
