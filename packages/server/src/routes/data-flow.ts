import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';

/** the data-flow graph, opt-in (CONTRACT 22); every operation `x-preview: true`. */
export async function dataFlowRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {}
