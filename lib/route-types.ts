/** The shape of generated/routes.ts entries: one operation of the contract, with JSON pointers into openapi.json. */
export interface RouteParam {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  /** JSON pointer into generated/openapi.json of the parameter's schema. */
  schema: string;
}

export interface RouteResponse {
  /** JSON pointer of the `application/json` body schema; null for bodiless responses (204). */
  schema: string | null;
  /** Response headers the contract marks required. */
  requiredHeaders: string[];
}

export interface RouteDef<Id extends string = string> {
  operationId: Id;
  method: "get" | "post" | "put" | "delete";
  /** OpenAPI path, e.g. `/v1/chats/{id}/messages`. */
  path: string;
  /** Express path, e.g. `/v1/chats/:id/messages`. */
  expressPath: string;
  tag: string;
  /** Which credential the operation takes: the project API key or the public SDK key. */
  auth: "project" | "public";
  deprecated: boolean;
  parameters: RouteParam[];
  /** JSON pointer of the JSON request body schema, when the operation takes one. */
  requestBody: string | null;
  responses: Record<string, RouteResponse>;
}
