/**
 * Builds generated/routes.ts: one entry per operation of `paths`, with JSON pointers into
 * generated/openapi.json for every parameter, body and response schema. The server compiles its
 * validators and serializers from those pointers, so no schema is ever copied by hand.
 */
import type { RouteDef, RouteParam, RouteResponse } from "../lib/route-types.ts";
import type { OpenApiDocument } from "./openapi-post.ts";

type Json = Record<string, unknown>;

const escapePointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

function resolveRef(doc: OpenApiDocument, ref: string): { value: Json; pointer: string } {
  const pointer = ref.slice(1);
  let node: unknown = doc;
  for (const part of pointer.split("/").slice(1)) {
    node = (node as Json)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return { value: node as Json, pointer };
}

export function routeDefs(doc: OpenApiDocument): RouteDef[] {
  const defs: RouteDef[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ["get", "post", "put", "delete"] as const) {
      const op = item[method];
      if (!op) continue;
      const opPointer = `/paths/${escapePointer(path)}/${method}`;
      const parameters = ((op.parameters as Json[]) ?? []).map((p, i): RouteParam => {
        const { value, pointer } = typeof p.$ref === "string" ? resolveRef(doc, p.$ref) : { value: p, pointer: `${opPointer}/parameters/${i}` };
        return { name: value.name as string, in: value.in as RouteParam["in"], required: value.required === true, schema: `#${pointer}/schema` };
      });
      const body = (op.requestBody as Json | undefined)?.content as Json | undefined;
      const responses: Record<string, RouteResponse> = {};
      for (const [status, res] of Object.entries(op.responses as Record<string, Json>)) {
        const content = res.content as Json | undefined;
        const headers = (res.headers as Record<string, Json> | undefined) ?? {};
        responses[status] = {
          schema: content?.["application/json"] ? `#${opPointer}/responses/${status}/content/application~1json/schema` : null,
          requiredHeaders: Object.entries(headers).filter(([, h]) => h.required === true).map(([name]) => name),
        };
      }
      const security = (op.security as Json[] | undefined) ?? (doc.security as Json[]);
      defs.push({
        operationId: op.operationId as string,
        method,
        path,
        expressPath: path.replace(/\{([^}]+)\}/g, ":$1"),
        tag: ((op.tags as string[]) ?? [])[0] ?? "",
        auth: security.some((s) => "PublicSdkKey" in s) ? "public" : "project",
        deprecated: op.deprecated === true,
        parameters,
        requestBody: body?.["application/json"] ? `#${opPointer}/requestBody/content/application~1json/schema` : null,
        responses,
      });
    }
  }
  return defs.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

/** Source text of generated/routes.ts. */
export function buildRouteTable(doc: OpenApiDocument, notice: string): string {
  const defs = routeDefs(doc);
  const ids = defs.map((d) => JSON.stringify(d.operationId)).join(" | ");
  return `// ${notice}
import type { RouteDef as AnyRouteDef } from "../lib/route-types.ts";
import type { operations } from "./schema.d.ts";

export type { RouteParam, RouteResponse } from "../lib/route-types.ts";
export type OperationId = ${ids};
export type RouteDef<Id extends OperationId = OperationId> = AnyRouteDef<Id>;

/** Every operation of the contract's \`paths\`. */
export const routes: RouteDef[] = ${JSON.stringify(defs, null, 2)};

/** Compile-time check that every operationId exists in schema.d.ts. */
export type _OperationsCovered = { [K in OperationId]: operations[K] };
`;
}
