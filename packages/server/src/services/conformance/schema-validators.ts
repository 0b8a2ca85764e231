/**
 * JSON Schema validation for `expect.schema`: the server package's registry (`schemas/<name>.schema.json`, the
 * documents /v1/schemas serves) and the kit's own (`conformance/schemas/`, e.g. the RFC 9457 problem document).
 * The runner uses its own copies, never the deployment's: a deployment cannot loosen the schema it is held to.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its default export arrives wrapped under NodeNext resolution
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const SUFFIX = '.schema.json';

export class SchemaValidators {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #ids = new Map<string, string>();
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(directories: readonly string[]) {
    addFormats(this.#ajv);
    for (const dir of directories) {
      if (!existsSync(dir)) continue;
      for (const file of readdirSync(dir)
        .filter((f) => f.endsWith(SUFFIX))
        .sort()) {
        const name = file.slice(0, -SUFFIX.length);
        if (this.#ids.has(name)) continue;
        const schema = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { $id?: string };
        const id = schema.$id ?? `urn:aar:conformance:${name}`;
        this.#ajv.addSchema({ ...schema, $id: id });
        this.#ids.set(name, id);
      }
    }
  }

  has(name: string): boolean {
    return this.#ids.has(name);
  }

  /** The problems of `value` against schema `name`: empty when valid. Throws for an unknown schema. */
  validate(name: string, value: unknown): string[] {
    let validate = this.#compiled.get(name);
    if (!validate) {
      const id = this.#ids.get(name);
      if (!id) throw new Error(`no JSON Schema named \`${name}\` in the kit or the registry`);
      validate = this.#ajv.getSchema(id);
      if (!validate) throw new Error(`JSON Schema \`${name}\` does not compile`);
      this.#compiled.set(name, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  }
}
