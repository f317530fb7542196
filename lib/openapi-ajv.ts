/**
 * ajv over generated/openapi.json. The whole document is registered under the id `openapi.json`, so any
 * schema is compiled straight from a JSON pointer (`openapi.json#/components/schemas/Study`) and no schema
 * is ever copied. Shared by the server, the tests and the conformance suite because it holds no
 * behaviour of the API, only how to read the contract with ajv.
 */
import { readFileSync } from "node:fs";
import { assetPath } from "./assets.ts";
import { createRequire } from "node:module";
import type { ErrorObject, Options, ValidateFunction } from "ajv";
import type Ajv2020Class from "ajv/dist/2020.js";
import type addFormatsFn from "ajv-formats";

// Both packages are CommonJS with `exports.default`; NodeNext typings disagree with the runtime shape, so load
// them through require and type them from their own declarations.
const require = createRequire(import.meta.url);
const Ajv2020 = (require("ajv/dist/2020.js") as { default: typeof Ajv2020Class.default }).default;
const addFormats = (require("ajv-formats") as { default: typeof addFormatsFn.default }).default;

export type { ErrorObject, ValidateFunction };
export type OpenApiDoc = Record<string, any>;

export const OPENAPI_PATH = assetPath("generated/openapi.json");

/**
 * A query or path integer as the contract means it: decimal digits only (no 0x10, 1e2, +5, " 5", 1.0), which ajv's
 * coercion would read as numbers. The server validates with it and the proxy judges a client's parameters with it.
 */
export const INTEGER_TEXT = /^-?\d{1,15}$/;

/** A UUID as text: the 8-4-4-4-12 hex digits, nothing around them (no `urn:uuid:`, no braces). */
export const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads generated/openapi.json (or another document) as plain JSON. */
export function loadOpenApi(path: string = OPENAPI_PATH): OpenApiDoc {
  return JSON.parse(readFileSync(path, "utf8")) as OpenApiDoc;
}

let generated: OpenApiDoc | undefined;
/** generated/openapi.json, read once per process: one object, so what is compiled from it can be kept per process. Never changed by its readers. */
export function contractDoc(): OpenApiDoc {
  return (generated ??= loadOpenApi());
}

/** ajv's discriminator keyword rejects `mapping`; the `oneOf` branches already carry the `type` constants. */
function stripDiscriminatorMapping(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(stripDiscriminatorMapping);
  if (!node || typeof node !== "object") return;
  const obj = node as Record<string, unknown>;
  const d = obj.discriminator as Record<string, unknown> | undefined;
  if (d && typeof d === "object") delete d.mapping;
  Object.values(obj).forEach(stripDiscriminatorMapping);
}

const INT32 = { type: "number", validate: (n: number) => Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 } as const;

export interface ContractAjv {
  /** The document as registered (a clone, with discriminator mappings stripped). */
  doc: OpenApiDoc;
  /** Compiles (once, cached by ajv) the schema at `pointer`, e.g. `#/components/schemas/Study`. */
  validator(pointer: string): ValidateFunction;
  /** Compiles a schema that may `$ref` into the contract as `openapi.json#/...`. */
  compile(schema: object): ValidateFunction;
}

/** Builds an ajv instance holding the whole contract. `options` are passed to ajv (e.g. `coerceTypes`). */
export function createContractAjv(doc: OpenApiDoc = loadOpenApi(), options: Options = {}): ContractAjv {
  const copy = structuredClone(doc);
  stripDiscriminatorMapping(copy);
  const ajv = new Ajv2020({
    strict: false, // the document has OpenAPI keywords (paths, info) around its schemas
    validateSchema: false,
    allErrors: true,
    discriminator: true,
    ...options,
  });
  addFormats(ajv);
  // ajv-formats' uuid takes a URN (`urn:uuid:...`) too: a server would read it as an id, and a body holding one would
  // pass. The seed's ids are UUID strings, its canonical form only (any case: RFC 9562 reads hex digits either way).
  ajv.addFormat("uuid", UUID_TEXT);
  ajv.addFormat("int32", INT32);
  ajv.addFormat("double", { type: "number", validate: (n: number) => Number.isFinite(n) });
  ajv.addSchema(copy, "openapi.json");
  return {
    doc: copy,
    validator(pointer: string) {
      const ref = pointer.startsWith("openapi.json") ? pointer : `openapi.json${pointer}`;
      const fn = ajv.getSchema(ref);
      if (!fn) throw new Error(`No schema at ${ref}`);
      return fn;
    },
    compile: (schema) => ajv.compile(schema),
  };
}

const kept = new WeakMap<OpenApiDoc, Map<string, ContractAjv>>();
/**
 * One ajv per document and options for the whole process, its validators compiled on first use and kept: the suite's
 * runs and the apps a test process builds each compiled the same schemas afresh (about half a second of CPU each). A
 * compiled validator keeps nothing between calls but its `errors`, which every caller reads at once.
 */
export function sharedContractAjv(doc: OpenApiDoc = contractDoc(), options: Options = {}): ContractAjv {
  let byOptions = kept.get(doc);
  if (!byOptions) kept.set(doc, (byOptions = new Map()));
  const key = JSON.stringify(options);
  let ajv = byOptions.get(key);
  if (!ajv) byOptions.set(key, (ajv = createContractAjv(doc, options)));
  return ajv;
}

/** One line per ajv error: `/data/0/id must match format "uuid"`. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`).join("; ");
}
