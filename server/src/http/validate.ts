/**
 * Request validation compiled once per operation from the contract's JSON pointers (generated/routes.ts):
 * query and path parameters with type coercion and defaults, JSON bodies without coercion. Unknown query
 * parameters are rejected, so a typo such as `studyId` is a 400 instead of a silently ignored filter.
 * Errors become one `details` entry per offending field, as the seed fixes for the messages endpoint.
 */
import leven from "leven";
import type { RouteDef, RouteParam } from "../../../generated/routes.ts";
import { INTEGER_TEXT, sharedContractAjv, type ContractAjv, type ErrorObject, type OpenApiDoc, type ValidateFunction } from "../../../lib/openapi-ajv.ts";
import { invalidParameters, type ValidationIssue } from "./errors.ts";

type Location = ValidationIssue["location"];

export interface RequestValidator {
  query(raw: Record<string, unknown>): Record<string, unknown>;
  path(raw: Record<string, string>): Record<string, string>;
  body(raw: unknown): unknown;
}

function resolvePointer(doc: OpenApiDoc, pointer: string): any {
  return pointer.slice(2).split("/").reduce((node: any, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

/** Enums longer than this are not listed in an answer: the closest value is named instead. */
const LISTED_VALUES = 10;
/** A refused value is shown to at most this many characters. */
const VALUE_SHOWN = 64;

/**
 * A long enum (the contract's operation ids) refused: the value, cut short, and the closest allowed value. Bounded
 * whatever the value: it is compared by its first VALUE_SHOWN characters.
 */
function closestValue(value: string, allowed: unknown[]): string {
  const probe = value.slice(0, VALUE_SHOWN);
  let closest = String(allowed[0]);
  let best = Infinity;
  for (const candidate of allowed) {
    const d = leven(probe, String(candidate));
    if (d < best) [best, closest] = [d, String(candidate)];
  }
  const shown = value.length > VALUE_SHOWN ? `${value.slice(0, VALUE_SHOWN)}… (${value.length} characters)` : value;
  return `${shown} is not one of the ${allowed.length} allowed values (did you mean ${closest}?)`;
}

function friendly(e: ErrorObject, value: unknown): string {
  switch (e.keyword) {
    case "enum": {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      if (allowed.length > LISTED_VALUES && typeof value === "string") return closestValue(value, allowed);
      return `must be one of: ${allowed.join(", ")}`;
    }
    case "format":
      return (e.params as { format: string }).format === "uuid" ? "must be a UUID" : `must be a valid ${(e.params as { format: string }).format}`;
    case "required":
      return "is required";
    case "oneOf":
      return "must match exactly one of the forms the contract allows";
    case "additionalProperties":
      return "is not a known parameter";
    case "type":
      return `must be ${(e.params as { type: string }).type === "integer" ? "an integer" : `of type ${(e.params as { type: string }).type}`}`;
    default:
      return e.message ?? "is invalid";
  }
}

/** At most this many `details` entries; the last one then says how many more fields were invalid. */
export const MAX_ISSUES = 20;

/** Bounds a list of issues: the first MAX_ISSUES, plus one entry counting the rest. */
export function bounded(issues: ValidationIssue[]): ValidationIssue[] {
  if (issues.length <= MAX_ISSUES) return issues;
  const rest = issues.length - MAX_ISSUES;
  return [...issues.slice(0, MAX_ISSUES), { location: issues[MAX_ISSUES].location, field: "(more)", message: `${rest} more invalid field${rest === 1 ? "" : "s"} not listed` }];
}

const valueAt = (data: unknown, instancePath: string): unknown =>
  instancePath.split("/").slice(1).reduce((node: any, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], data);

/** One issue per offending field: the first (most specific) ajv error for it. */
export function toIssues(errors: ErrorObject[] | null | undefined, location: Location, nested: boolean, data?: unknown): ValidationIssue[] {
  const byField = new Map<string, ValidationIssue>();
  for (const e of errors ?? []) {
    const path = e.instancePath.replace(/^\//, "");
    let field = nested ? path : path.split("/")[0];
    if (e.keyword === "required") field = [path, (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join("/");
    if (e.keyword === "additionalProperties") field = [path, (e.params as { additionalProperty: string }).additionalProperty].filter(Boolean).join("/");
    // A combinator's own error adds nothing when an issue inside it (the field or below it) is already named.
    if (e.keyword === "if" || e.keyword === "anyOf" || e.keyword === "oneOf") {
      if ([...byField.keys()].some((f) => f === field || field === "" || f.startsWith(`${field}/`))) continue;
    }
    if (!byField.has(field)) byField.set(field, { location, field: field || "(body)", message: friendly(e, valueAt(data, e.instancePath)) });
  }
  // An issue about a field that holds a more specific one (a nullable array's "must be null" beside its item's) goes.
  const fields = [...byField.keys()];
  return [...byField.values()].filter((issue) => !fields.some((f) => f.startsWith(`${issue.field}/`)));
}

/**
 * Text holding U+0000 is refused on every store alike: PostgreSQL cannot store it (in text or jsonb) nor compare with
 * it, and a refusal the client can read beats a 503 that retrying never ends. One issue per field that holds one, a
 * key included (a tool's input is free JSON).
 */
const NUL_MESSAGE = "must not contain the NUL character (U+0000)";
function nulIssues(value: unknown, location: Location, path: string, out: ValidationIssue[] = []): ValidationIssue[] {
  if (typeof value === "string") {
    if (value.includes("\u0000")) out.push({ location, field: path || "(body)", message: NUL_MESSAGE });
  } else if (Array.isArray(value)) {
    value.forEach((item, k) => nulIssues(item, location, path ? `${path}/${k}` : String(k), out));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const at = path ? `${path}/${key}` : key;
      if (key.includes("\u0000")) out.push({ location, field: at, message: NUL_MESSAGE });
      else nulIssues(item, location, at, out);
    }
  }
  return out;
}

function paramObjectSchema(params: RouteParam[]) {
  return {
    type: "object",
    properties: Object.fromEntries(params.map((p) => [p.name, { $ref: `openapi.json${p.schema}` }])),
    required: params.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

const factories = new WeakMap<OpenApiDoc, ValidatorFactory>();

export class ValidatorFactory {
  private readonly coercing: ContractAjv;
  private readonly strict: ContractAjv;
  /** Stops at the first error: a large invalid body costs one error's work, not one per item. */
  private readonly firstError: ContractAjv;
  private readonly routes = new Map<RouteDef, RequestValidator>();

  /**
   * The factory of a document, one per process: every app a process builds (a test file builds dozens) shares the
   * validators compiled for the first, instead of compiling its own (a third of a second of CPU each).
   */
  static of(doc: OpenApiDoc): ValidatorFactory {
    let factory = factories.get(doc);
    if (!factory) factories.set(doc, (factory = new ValidatorFactory(doc)));
    return factory;
  }

  private constructor(private readonly doc: OpenApiDoc) {
    this.coercing = sharedContractAjv(doc, { coerceTypes: true });
    this.strict = sharedContractAjv(doc);
    this.firstError = sharedContractAjv(doc, { allErrors: false });
  }

  /** The route's validator, compiled on first use and kept (its functions keep nothing between requests). */
  forRoute(route: RouteDef): RequestValidator {
    let validator = this.routes.get(route);
    if (!validator) this.routes.set(route, (validator = this.compile(route)));
    return validator;
  }

  private compile(route: RouteDef): RequestValidator {
    const queryParams = route.parameters.filter((p) => p.in === "query");
    const pathParams = route.parameters.filter((p) => p.in === "path");
    const defaults = queryParams
      .map((p) => [p.name, resolvePointer(this.doc, p.schema)?.default] as const)
      .filter(([, d]) => d !== undefined);
    const query: ValidateFunction = this.coercing.compile(paramObjectSchema(queryParams));
    const path: ValidateFunction = this.coercing.compile(paramObjectSchema(pathParams));
    const body = route.requestBody ? this.strict.validator(route.requestBody) : null;
    const bodyFast = route.requestBody ? this.firstError.validator(route.requestBody) : null;
    const integers = queryParams.filter((p) => resolvePointer(this.doc, p.schema)?.type === "integer").map((p) => p.name);

    return {
      query(raw) {
        const nul = queryParams.length ? Object.entries(raw).flatMap(([name, value]) => nulIssues(value, "query", name).slice(0, 1).map((i) => ({ ...i, field: name }))) : [];
        if (nul.length) throw invalidParameters(bounded(nul));
        const data: Record<string, unknown> = { ...raw };
        // ajv's coercion reads "0x10", "1e2" and "+5" as numbers; the contract's integers are decimal digits.
        const strictIssues: ValidationIssue[] = integers
          .filter((name) => typeof data[name] === "string" && !INTEGER_TEXT.test(data[name] as string))
          .map((name) => ({ location: "query", field: name, message: "must be an integer" }));
        for (const issue of strictIssues) delete data[issue.field];
        const ok = query(data);
        if (!ok || strictIssues.length) {
          const more = ok ? [] : toIssues(query.errors, "query", false).filter((i) => !strictIssues.some((s) => s.field === i.field));
          throw invalidParameters(bounded([...strictIssues, ...more]));
        }
        for (const [name, value] of defaults) if (data[name] === undefined) data[name] = value;
        return data;
      },
      path(raw) {
        const data = { ...raw };
        if (!path(data)) throw invalidParameters(bounded(toIssues(path.errors, "path", false)));
        return data;
      },
      body(raw) {
        if (!body || !bodyFast) return undefined;
        const nul = nulIssues(raw, "body", "");
        if (nul.length) throw invalidParameters(bounded(nul));
        if (bodyFast(raw)) return raw;
        // Every issue for a small body; for a large one (up to the 100 KB limit) the first, so a body of 49,000
        // bad items costs one error's work and a short answer.
        const small = JSON.stringify(raw).length <= 8_192;
        if (small && !body(raw)) throw invalidParameters(bounded(toIssues(body.errors, "body", true, raw)));
        throw invalidParameters([...toIssues(bodyFast.errors, "body", true, raw), { location: "body", field: "(more)", message: "the body is large: only the first invalid field is listed" }]);
      },
    };
  }
}
