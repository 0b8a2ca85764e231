import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';

/** governed agent memory, opt-in (CONTRACT 22); every operation `x-preview: true`. */
export async function memoryRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
