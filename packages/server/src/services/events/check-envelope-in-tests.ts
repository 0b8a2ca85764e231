/**
 * Under the test runner (`VITEST` set, inherited by the servers tests spawn), every envelope appended, and every
 * envelope rebuilt from a bulk operation, is validated against its catalogue schema (core/events): the whole test
 * suite is then the check that every event it produces matches `GET /v1/event-types`. A mismatch throws, so the
 * change is rolled back and the test that caused it fails. Off in production: the catalogue check of
 * catalogued-event.ts is all an append pays there.
 */
import { envelopeSchemaOf, eventTypeDefinition } from '@aar/core';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { UnsignedEventEnvelope } from './append-event.ts';

const ENABLED = Boolean(process.env.VITEST);

// ajv-formats is CommonJS: its default export arrives wrapped under NodeNext resolution
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

function validatorOf(eventType: string): ValidateFunction | undefined {
  const cached = validators.get(eventType);
  if (cached) return cached;
  const definition = eventTypeDefinition(eventType);
  if (!definition) return undefined;
  if (!ajv) {
    ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
  }
  const validate = ajv.compile(envelopeSchemaOf(definition, { signed: false }));
  validators.set(eventType, validate);
  return validate;
}

export function checkEnvelopeInTests(envelope: UnsignedEventEnvelope): void {
  if (!ENABLED) return;
  const validate = validatorOf(envelope.event_type);
  const problems = !validate
    ? [`\`${envelope.event_type}\` is not in the event catalogue`]
    : validate(envelope)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  if (envelope.delivery.idempotency_key !== envelope.event_id)
    problems.push('/delivery/idempotency_key is not event_id');
  if (problems.length === 0) return;
  const message = `event ${envelope.event_type} does not match the event catalogue: ${problems.join('; ')}`;
  process.stderr.write(`${message}\n${JSON.stringify(envelope)}\n`);
  throw new Error(message);
}
