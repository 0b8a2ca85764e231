/**
 * Every answer that is not a success is `application/problem+json`: thrown errors (ours, Fastify's, plugins'),
 * unknown routes. 5xx are logged at error with the cause, 4xx at info with the code and field paths only:
 * a refusal's message may quote input, and input may be a card number or a token.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AarError } from '@aar/core';
import { problemFrom, sendProblem, type ProblemDocument } from './problem.ts';

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const problem = problemFrom(error, request);
    logProblem(request, problem, error);
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) => {
    const problem = problemFrom(new AarError('route_not_found', 'no route matches this method and path'), request);
    logProblem(request, problem, undefined);
    return sendProblem(reply, problem);
  });
}

function logProblem(request: FastifyRequest, problem: ProblemDocument, error: unknown): void {
  if (problem.status >= 500) {
    request.log.error({ err: error, code: problem.code, status: problem.status }, 'request failed');
    return;
  }
  const paths = problem.errors?.map((e) => e.path);
  request.log.info({ code: problem.code, status: problem.status, paths }, 'request refused');
}
