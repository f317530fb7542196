/**
 * Post-compile fixes to the OpenAPI document emitted by TypeSpec 1.11. Each fix exists because the
 * emitter cannot express the contract directly; keep this list short and say why for each.
 */
export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: Record<string, Record<string, unknown>>;
};

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** Moves operations marked `x-webhook: <event>` from `paths` to the OpenAPI 3.1 `webhooks` map (microsoft/typespec#4736). */
function moveWebhooks(doc: OpenApiDocument): Record<string, unknown> {
  const webhooks: Record<string, Record<string, unknown>> = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      const event = op?.["x-webhook"];
      if (typeof event !== "string") continue;
      const { ["x-webhook"]: _marker, security: _security, ...rest } = op;
      // A webhook is authenticated by its signature header, not by an API key of ours.
      webhooks[event] = { ...webhooks[event], [method]: { ...rest, security: [] } };
      delete item[method];
    }
    if (!METHODS.some((m) => item[m])) delete doc.paths[path];
  }
  return webhooks;
}

/**
 * TypeSpec emits `Record<unknown>` as `unevaluatedProperties: {}`; openapi-typescript ignores that keyword and
 * types such objects as `Record<string, never>`. Our schemas never combine it with `allOf`, so the
 * equivalent `additionalProperties` is exact and yields `{[key: string]: unknown}`.
 */
function unevaluatedToAdditional(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(unevaluatedToAdditional);
  if (!node || typeof node !== "object") return;
  const obj = node as Record<string, unknown>;
  if ("unevaluatedProperties" in obj && !("allOf" in obj)) {
    obj.additionalProperties = obj.unevaluatedProperties;
    delete obj.unevaluatedProperties;
  }
  Object.values(obj).forEach(unevaluatedToAdditional);
}

/** Applies every fix and stamps the do-not-edit notice right after `openapi`. */
/**
 * Request bodies are closed: an unknown field (a typo such as `event`, or `signing_secret`) is a 400, the same
 * rule as unknown query parameters. TypeSpec emits open objects, so the rule is written here, into the contract.
 */
function closeRequestBodies(doc: OpenApiDocument): void {
  const schemas = (doc as { components?: { schemas?: Record<string, any> } }).components?.schemas ?? {};
  for (const item of Object.values<any>((doc as { paths?: object }).paths ?? {})) {
    for (const op of Object.values<any>(item)) {
      const ref: unknown = op?.requestBody?.content?.["application/json"]?.schema?.$ref;
      if (typeof ref !== "string") continue;
      const schema = schemas[ref.split("/").pop()!];
      if (schema?.type === "object" && schema.additionalProperties === undefined) schema.additionalProperties = false;
    }
  }
}

/**
 * Truncation markers come together, and only on a nulled value: `truncated` and `truncation_reason` require each
 * other (`dependentRequired`), and when present the payload (`input`, `content`, `query`) is null (`dependentSchemas`).
 * TypeSpec cannot say so.
 */
function tieTruncationMarkers(doc: OpenApiDocument): void {
  const schemas = (doc as { components?: { schemas?: Record<string, any> } }).components?.schemas ?? {};
  for (const [name, field] of [["ToolUsePart", "input"], ["ToolResultPart", "content"], ["MessageSource", "query"]] as const) {
    const schema = schemas[name];
    if (!schema?.properties?.truncated) throw new Error(`openapi-post: ${name} has no truncation markers`);
    schema.dependentRequired = { truncated: ["truncation_reason"], truncation_reason: ["truncated"] };
    schema.dependentSchemas = { truncated: { properties: { [field]: { type: "null" } } } };
  }
}

/** Path `{id}` parameters get an example id, so generated clients and docs show a usable request. */
function exampleIds(doc: OpenApiDocument): void {
  for (const item of Object.values<any>((doc as { paths?: object }).paths ?? {})) {
    for (const op of Object.values<any>(item)) {
      for (const p of op?.parameters ?? []) if (p.in === "path" && p.name === "id" && p.example === undefined) p.example = "4f1c2b7e-8a3d-4c59-9e21-6b0d7a3f5c11";
    }
  }
}

export function postProcess(raw: OpenApiDocument, notice: string): OpenApiDocument {
  const doc = structuredClone(raw);
  const webhooks = moveWebhooks(doc);
  unevaluatedToAdditional(doc);
  unevaluatedToAdditional(webhooks);
  closeRequestBodies(doc);
  tieTruncationMarkers(doc);
  exampleIds(doc);
  for (const server of (doc as { servers?: Array<{ variables?: object }> }).servers ?? []) if (server.variables && !Object.keys(server.variables).length) delete server.variables;
  const { openapi, info, ...rest } = doc;
  return { openapi, "x-generated": notice, info, ...rest, webhooks } as OpenApiDocument;
}

/**
 * The API as published for SDK generators: the contract without the reference server's simulation surface (its
 * paths, tag, tag group and the schemas only they use), so a client generated for the real service has none of it.
 */
export function publicApi(full: OpenApiDocument): OpenApiDocument {
  const doc = structuredClone(full) as any;
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) if (op?.tags?.includes("Simulation")) delete item[method];
    if (!Object.keys(item).length) delete doc.paths[path];
  }
  doc.tags = (doc.tags ?? []).filter((t: { name: string }) => t.name !== "Simulation");
  if (doc["x-tagGroups"]) doc["x-tagGroups"] = doc["x-tagGroups"].filter((g: { tags: string[] }) => !g.tags.includes("Simulation"));
  // Keep the schemas reachable from what is left (paths, webhooks, parameters...), following references between schemas.
  const schemas: Record<string, unknown> = doc.components.schemas;
  const refs = (node: unknown) => [...JSON.stringify(node).matchAll(/#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
  const reachable = new Set(refs({ ...doc, components: { ...doc.components, schemas: {} } }));
  for (const name of reachable) for (const next of refs(schemas[name] ?? {})) reachable.add(next); // a Set visits what is added while iterating
  for (const name of Object.keys(schemas)) if (!reachable.has(name)) delete schemas[name];
  // The published description says nothing of the simulation surface: a generated SDK's docs must not mention it.
  const description = String(doc.info.description ?? "").split("\n").filter((line) => !/_sim|simulation/i.test(line)).join("\n").trim();
  doc.info = { ...doc.info, description: `${description}\n\nThis document is the API as the service publishes it, for SDK generators.` };
  return doc as OpenApiDocument;
}
