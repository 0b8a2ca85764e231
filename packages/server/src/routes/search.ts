import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';

/** signed search results, opt-in (CONTRACT 22); every operation `x-preview: true`. */
export async function searchRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
