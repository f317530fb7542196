/**
 * Request validation compiled once per operation from the contract's JSON pointers (generated/routes.ts):
 * query and path parameters with type coercion and defaults, JSON bodies without coercion. Unknown query
 * parameters are rejected, so a typo such as `studyId` is a 400 instead of a silently ignored filter.
 * Errors become one `details` entry per offending field, as the seed fixes for the messages endpoint.
 */
import type { RouteDef, RouteParam } from "../../../generated/routes.ts";
import { createContractAjv, type ContractAjv, type ErrorObject, type OpenApiDoc, type ValidateFunction } from "../../../lib/openapi-ajv.ts";
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

function friendly(e: ErrorObject): string {
  switch (e.keyword) {
    case "enum":
      return `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(", ")}`;
    case "format":
      return (e.params as { format: string }).format === "uuid" ? "must be a UUID" : `must be a valid ${(e.params as { format: string }).format}`;
    case "required":
      return "is required";
    case "additionalProperties":
      return "is not a known parameter";
    case "type":
      return `must be ${(e.params as { type: string }).type === "integer" ? "an integer" : `of type ${(e.params as { type: string }).type}`}`;
    default:
      return e.message ?? "is invalid";
  }
}

/** One issue per offending field: the first (most specific) ajv error for it. */
export function toIssues(errors: ErrorObject[] | null | undefined, location: Location, nested: boolean): ValidationIssue[] {
  const byField = new Map<string, ValidationIssue>();
  for (const e of errors ?? []) {
    const path = e.instancePath.replace(/^\//, "");
    let field = nested ? path : path.split("/")[0];
    if (e.keyword === "required") field = [path, (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join("/");
    if (e.keyword === "additionalProperties") field = [path, (e.params as { additionalProperty: string }).additionalProperty].filter(Boolean).join("/");
    if (e.keyword === "if" || e.keyword === "anyOf" || e.keyword === "oneOf") {
      if (byField.has(field)) continue;
    }
    if (!byField.has(field)) byField.set(field, { location, field: field || "(body)", message: friendly(e) });
  }
  return [...byField.values()];
}

function paramObjectSchema(params: RouteParam[]) {
  return {
    type: "object",
    properties: Object.fromEntries(params.map((p) => [p.name, { $ref: `openapi.json${p.schema}` }])),
    required: params.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

export class ValidatorFactory {
  private readonly coercing: ContractAjv;
  private readonly strict: ContractAjv;

  constructor(private readonly doc: OpenApiDoc) {
    this.coercing = createContractAjv(doc, { coerceTypes: true });
    this.strict = createContractAjv(doc);
  }

  forRoute(route: RouteDef): RequestValidator {
    const queryParams = route.parameters.filter((p) => p.in === "query");
    const pathParams = route.parameters.filter((p) => p.in === "path");
    const defaults = queryParams
      .map((p) => [p.name, resolvePointer(this.doc, p.schema)?.default] as const)
      .filter(([, d]) => d !== undefined);
    const query: ValidateFunction = this.coercing.compile(paramObjectSchema(queryParams));
    const path: ValidateFunction = this.coercing.compile(paramObjectSchema(pathParams));
    const body = route.requestBody ? this.strict.validator(route.requestBody) : null;

    return {
      query(raw) {
        const data: Record<string, unknown> = { ...raw };
        if (!query(data)) throw invalidParameters(toIssues(query.errors, "query", false));
        for (const [name, value] of defaults) if (data[name] === undefined) data[name] = value;
        return data;
      },
      path(raw) {
        const data = { ...raw };
        if (!path(data)) throw invalidParameters(toIssues(path.errors, "path", false));
        return data;
      },
      body(raw) {
        if (!body) return undefined;
        if (!body(raw)) throw invalidParameters(toIssues(body.errors, "body", true));
        return raw;
      },
    };
  }
}
