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
export function postProcess(raw: OpenApiDocument, notice: string): OpenApiDocument {
  const doc = structuredClone(raw);
  const webhooks = moveWebhooks(doc);
  unevaluatedToAdditional(doc);
  unevaluatedToAdditional(webhooks);
  const { openapi, info, ...rest } = doc;
  return { openapi, "x-generated": notice, info, ...rest, webhooks } as OpenApiDocument;
}
