/**
 * What the suite knows of the contract: the operations of generated/openapi.json, how to match a request to
 * one, and how to judge a response: declared status, JSON content type, body schema, required headers, and
 * no undeclared fields (so a detail-only field leaking into a list item is caught).
 */
import { createContractAjv, describeErrors, type ContractAjv, type OpenApiDoc } from "../../lib/openapi-ajv.ts";
import type { Reply } from "./http.ts";

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  regex: RegExp;
  op: any;
  auth: "project" | "public";
  tag: string;
}

const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

export class Contract {
  readonly ajv: ContractAjv;
  readonly doc: OpenApiDoc;
  readonly operations: Operation[] = [];

  constructor(doc?: OpenApiDoc) {
    this.ajv = createContractAjv(doc);
    this.doc = this.ajv.doc;
    for (const [path, item] of Object.entries<any>(this.doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const security = op.security ?? this.doc.security;
        this.operations.push({
          operationId: op.operationId,
          method: method.toUpperCase(),
          path,
          regex: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}/?$`),
          op,
          auth: security.some((s: object) => "PublicSdkKey" in s) ? "public" : "project",
          tag: op.tags?.[0] ?? "",
        });
      }
    }
  }

  match(method: string, path: string): Operation | undefined {
    return this.operations.find((o) => o.method === method && o.regex.test(path));
  }

  byId(id: string): Operation {
    const op = this.operations.find((o) => o.operationId === id);
    if (!op) throw new Error(`no operation ${id} in the contract`);
    return op;
  }

  resolve(node: any): any {
    let n = node;
    for (let guard = 0; n?.$ref && guard < 20; guard++) n = n.$ref.slice(2).split("/").reduce((x: any, k: string) => x[k.replace(/~1/g, "/").replace(/~0/g, "~")], this.doc);
    return n;
  }

  /** Problems of a reply judged against the operation it answers (or the error envelope for unknown routes). */
  judge(reply: Reply, operation = this.match(reply.method, reply.path.split("?")[0])): string[] {
    const problems: string[] = [];
    if (reply.status >= 500) problems.push(`status ${reply.status}: a server error is never a valid answer`);
    const type = reply.headers.get("content-type") ?? "";
    if (reply.status !== 204 && !/^application\/json\b/.test(type)) problems.push(`content-type is ${JSON.stringify(type)}, not application/json`);
    if (!operation) {
      const v = this.ajv.validator("#/components/schemas/ErrorEnvelope");
      if (reply.status < 400) problems.push(`unknown route answered ${reply.status}`);
      else if (!v(reply.body)) problems.push(`error body is not the envelope: ${describeErrors(v.errors)}`);
      return problems;
    }
    const declared = operation.op.responses[String(reply.status)];
    if (!declared) {
      problems.push(`status ${reply.status} is not declared for ${operation.operationId} (declared: ${Object.keys(operation.op.responses).join(", ")})`);
      return problems;
    }
    for (const [name, h] of Object.entries<any>(declared.headers ?? {})) {
      if (h.required && !reply.headers.has(name)) problems.push(`missing required header ${name}`);
    }
    if (declared.content?.["application/json"]) {
      const pointer = `#/paths/${esc(operation.path)}/${operation.method.toLowerCase()}/responses/${reply.status}/content/application~1json/schema`;
      const v = this.ajv.validator(pointer);
      if (!v(reply.body)) problems.push(`body does not match the schema: ${describeErrors(v.errors)}`);
      else problems.push(...this.undeclared(declared.content["application/json"].schema, reply.body, ""));
    } else if (reply.text !== "") problems.push(`a ${reply.status} must have an empty body`);
    return problems;
  }

  /** Fields present in `value` that the schema does not declare (free-form objects are left alone). */
  undeclared(schemaNode: any, value: any, path: string): string[] {
    const schema = this.resolve(schemaNode);
    if (value === null || typeof value !== "object" || !schema) return [];
    if (schema.allOf) return schema.allOf.flatMap((s: any) => this.undeclared(s, value, path));
    const alternatives = schema.oneOf ?? schema.anyOf;
    if (alternatives) {
      const prop = schema.discriminator?.propertyName;
      const candidates = alternatives.map((s: any) => this.resolve(s)).filter((s: any) => s.type !== "null");
      const chosen = prop ? candidates.find((s: any) => s.properties?.[prop]?.enum?.includes(value[prop])) : candidates.find((s: any) => (Array.isArray(value) ? s.type === "array" : s.type === "object"));
      return chosen ? this.undeclared(chosen, value, path) : [];
    }
    if (Array.isArray(value)) return schema.items ? value.flatMap((v, i) => this.undeclared(schema.items, v, `${path}/${i}`)) : [];
    if (!schema.properties || schema.additionalProperties !== undefined) return [];
    const out: string[] = [];
    for (const key of Object.keys(value)) {
      if (!(key in schema.properties)) out.push(`${path}/${key} is not declared by the contract`);
      else out.push(...this.undeclared(schema.properties[key], value[key], `${path}/${key}`));
    }
    return out;
  }
}
