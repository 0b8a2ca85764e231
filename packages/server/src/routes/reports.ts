import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';

/** compliance reports and their schedules, opt-in (CONTRACT 22); every operation `x-preview: true`. */
export async function reportRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
