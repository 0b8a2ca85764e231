import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';

/** the authority graph queries (CONTRACT 22); every operation `x-preview: true`. */
export async function graphRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
