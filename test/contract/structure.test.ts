// Structural rules every operation of the contract follows. A new operation that forgets one fails here.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadOpenApi } from "../../lib/openapi-ajv.ts";

const doc = loadOpenApi();
const deref = (node: any): any => (node?.$ref ? node.$ref.slice(2).split("/").reduce((n: any, k: string) => n[k.replace(/~1/g, "/").replace(/~0/g, "~")], doc) : node);
const ops = Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.entries<any>(item).map(([method, op]) => ({ path, method, op, id: `${method.toUpperCase()} ${path}` })));
/** Simulation operations added after contract 2.0.0 fixed the OperationId enum (see the faults test below). */
const AFTER_THE_ENUM = ["simSetStudyStatus", "simCreateRelease"];
const jsonSchema = (res: any) => res?.content?.["application/json"]?.schema;
const isList = (op: any) => String(jsonSchema(op.responses["200"])?.$ref ?? "").endsWith("List");

describe("contract structure", () => {
  it("holds the 16 /v1 paths of the seed (13 endpoints + 3 participant) and the simulation paths", () => {
    const v1 = Object.keys(doc.paths).filter((p) => p.startsWith("/v1/"));
    const endpoints = ops.filter((o) => o.path.startsWith("/v1/"));
    expect(endpoints).toHaveLength(16);
    expect(v1).toEqual(expect.arrayContaining([
      "/v1/studies", "/v1/studies/{id}", "/v1/interviews", "/v1/interviews/{id}", "/v1/releases", "/v1/releases/{id}",
      "/v1/chats", "/v1/chats/{id}", "/v1/chats/{id}/messages", "/v1/webhooks", "/v1/experiments",
      "/v1/interview-participant/config", "/v1/interview-participant/launches", "/v1/interview-participant/prompt-events",
    ]));
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/_sim/")).sort()).toEqual(["/_sim/chats", "/_sim/events", "/_sim/faults", "/_sim/forwards", "/_sim/forwards/{id}/event", "/_sim/forwards/{id}/resend", "/_sim/interviews", "/_sim/interviews/{id}/abandon", "/_sim/interviews/{id}/complete", "/_sim/listener", "/_sim/projects", "/_sim/releases", "/_sim/studies", "/_sim/studies/{id}/status", "/_sim/webhook-deliveries", "/_sim/webhook-deliveries/{id}/request", "/_sim/webhook-deliveries/{id}/resend"]);
    for (const o of ops.filter((o) => o.path.startsWith("/_sim/"))) expect(o.op.tags).toEqual(["Simulation"]);
  });

  it.each(ops)("$id has an operationId, a summary, a description and titled success and error examples", ({ op }) => {
    expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
    expect(op.summary?.length).toBeGreaterThan(3);
    expect(op.description?.length).toBeGreaterThan(10);
    // Any media type: the delivery stream's success example is under text/event-stream.
    const titled = (status: string) => Object.values<any>(op.responses[status]?.content ?? {}).flatMap((m) => Object.values<any>(m.examples ?? {})).filter((e) => e.summary).length;
    const statuses = Object.keys(op.responses);
    const successExamples = statuses.filter((s) => s.startsWith("2")).reduce((n, s) => n + titled(s), 0);
    const errorExamples = statuses.filter((s) => /^[45]/.test(s)).reduce((n, s) => n + titled(s), 0);
    // 204 has no body to carry an example; DELETE proves its success example through the 401 one instead.
    if (!statuses.every((s) => s === "204" || !s.startsWith("2"))) expect(successExamples).toBeGreaterThan(0);
    expect(errorExamples).toBeGreaterThan(0);
  });

  it.each(ops)("$id declares 401 with the error envelope", ({ op }) => {
    expect(jsonSchema(op.responses["401"])?.$ref).toBe("#/components/schemas/ErrorEnvelope");
  });

  it.each(ops.filter((o) => o.path.includes("{id}")))("$id declares 404 and 400 (non-UUID id)", ({ op }) => {
    expect(jsonSchema(op.responses["404"])?.$ref).toBe("#/components/schemas/ErrorEnvelope");
    expect(jsonSchema(op.responses["400"])?.$ref).toBe("#/components/schemas/ErrorEnvelope");
    const id = op.parameters.map(deref).find((p: any) => p.in === "path" && p.name === "id");
    expect(deref(id.schema).format).toBe("uuid");
  });

  const lists = ops.filter((o) => isList(o.op));
  it("finds every list operation", () => expect(lists.map((o) => o.op.operationId).sort()).toEqual(
    ["listChatMessages", "listChats", "listInterviews", "listReleases", "listStudies", "simListForwards", "simListWebhookDeliveries"],
  ));

  it.each(lists)("$id uses the list envelope, limit 1..100 default 20, a UUID starting_after and declares 400", ({ op }) => {
    const envelope = deref(jsonSchema(op.responses["200"]));
    expect(envelope.required).toEqual(["object", "data", "has_more"]);
    expect(envelope.properties.object.enum).toEqual(["list"]);
    expect(envelope.properties.data.type).toBe("array");
    expect(envelope.properties.has_more.type).toBe("boolean");
    const params = op.parameters.map(deref);
    const limit = params.find((p: any) => p.name === "limit");
    expect(limit.in).toBe("query");
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    const cursor = params.find((p: any) => p.name === "starting_after");
    expect(deref(cursor.schema).format).toBe("uuid");
    expect(jsonSchema(op.responses["400"])?.$ref).toBe("#/components/schemas/ErrorEnvelope");
  });

  it("list items never carry detail-only fields", () => {
    const props = (name: string) => Object.keys(doc.components.schemas[name].properties);
    for (const [summary, detail] of [["StudySummary", "Study"], ["InterviewSummary", "Interview"], ["ReleaseSummary", "Release"], ["ChatSummary", "Chat"]]) {
      const detailOnly = props(detail).filter((p) => !props(summary).includes(p));
      expect(detailOnly.length, `${detail} adds detail-only fields`).toBeGreaterThan(0);
    }
    expect(props("StudySummary")).not.toContain("interview_count");
    expect(props("InterviewSummary")).not.toContain("transcript");
    expect(props("ReleaseSummary")).not.toContain("vcs_pr_description");
    expect(props("ChatSummary")).not.toContain("message_count");
  });

  it("MessagePart is a oneOf over the six part types with a `type` discriminator", () => {
    const part = doc.components.schemas.MessagePart;
    expect(part.discriminator.propertyName).toBe("type");
    expect(Object.keys(part.discriminator.mapping).sort()).toEqual(["file", "redacted_thinking", "text", "thinking", "tool_result", "tool_use"]);
    expect(part.oneOf).toHaveLength(6);
    for (const name of ["ToolUsePart", "ToolResultPart", "MessageSource"]) {
      const p = doc.components.schemas[name].properties;
      expect(p.truncated.enum).toEqual([true]);
      expect(deref(p.truncation_reason.allOf[0]).enum).toEqual(["size_limit_32kb"]);
    }
  });

  it("the deprecated experiments endpoint is marked deprecated and requires Deprecation and Sunset on every response", () => {
    const op = doc.paths["/v1/experiments"].get;
    expect(op.deprecated).toBe(true);
    for (const res of Object.values<any>(op.responses)) {
      expect(res.headers.Deprecation.required).toBe(true);
      expect(res.headers.Sunset.required).toBe(true);
    }
  });

  it("participant endpoints use the public SDK key, every other operation the project key", () => {
    for (const { path, op } of ops) {
      const schemes = (op.security ?? doc.security).flatMap((s: object) => Object.keys(s));
      expect(schemes).toEqual([path.startsWith("/v1/interview-participant/") ? "PublicSdkKey" : "ProjectApiKey"]);
    }
    expect(doc.components.securitySchemes.ProjectApiKey).toMatchObject({ type: "http", scheme: "Bearer" });
  });

  it("states in the schema what generic tools must know: a launch names exactly one of launchToken and inviteCode", async () => {
    const { createContractAjv } = await import("../../lib/openapi-ajv.ts");
    const validate = createContractAjv(doc).validator("#/components/schemas/LaunchRequest");
    expect(deref(doc.components.schemas.LaunchRequest).oneOf).toHaveLength(2);
    expect(validate({ referenceId: "u", launchToken: "lt_x" })).toBe(true);
    expect(validate({ referenceId: "u", inviteCode: "x7Kp2Q" })).toBe(true);
    expect(validate({ referenceId: "u", launchToken: "lt_x", inviteCode: "x7Kp2Q" })).toBe(false);
    expect(validate({ referenceId: "u" })).toBe(false);
  });

  it("PUT /_sim/faults takes the contract's operation ids only: the OperationId enum is exactly every operation with a path, but those added since contract 2.0.0 froze it", () => {
    // The enum is in the faults' responses too: a value added there is a breaking change for a generated client with
    // exhaustive enums (test/breaking). Simulation operations added since are not fault targets; /v1 ones would need
    // the next major version.
    const ids = ops.map((o) => o.op.operationId).filter((id) => !AFTER_THE_ENUM.includes(id)).sort();
    expect([...deref(doc.components.schemas.OperationId).enum].sort()).toEqual(ids);
    expect(JSON.stringify(doc.components.schemas.SimFaultSettings.properties.operations)).toContain("#/components/schemas/OperationId");
  });

  it("marks the sandbox's own tooling (x-sandbox-tooling): the delivery log, the event stream, the listener and its forwards; nothing an implementer offers", () => {
    const tooling = ops.filter((o) => o.op["x-sandbox-tooling"] === true).map((o) => o.op.operationId).sort();
    expect(tooling).toEqual(["simGetDeliveryRequest", "simGetForwardEvent", "simGetListener", "simListForwards", "simListWebhookDeliveries", "simRecordForward", "simResendDelivery", "simResendForward", "simStreamEvents"]);
    for (const o of ops.filter((x) => !x.path.startsWith("/_sim/"))) expect(o.op["x-sandbox-tooling"], o.id).toBeUndefined();
  });

  it("PUT /v1/webhooks answers 201 with the secret and 200 without it", () => {
    const put = doc.paths["/v1/webhooks"].put;
    expect(deref(jsonSchema(put.responses["201"])).required).toContain("signing_secret");
    expect(Object.keys(deref(jsonSchema(put.responses["200"])).properties)).not.toContain("signing_secret");
    expect(Object.keys(doc.paths["/v1/webhooks"].delete.responses)).toContain("204");
  });
  it("publishes api.json for SDK authors with contact, license and a description that never mentions the simulation surface", () => {
    const api = JSON.parse(readFileSync(new URL("../../generated/api.json", import.meta.url), "utf8"));
    expect(api.info.contact).toMatchObject({ name: expect.any(String), url: expect.stringMatching(/^https:\/\//) });
    expect(api.info.license).toMatchObject({ name: "MIT" });
    expect(api.info.description).not.toMatch(/_sim|simulation/i);
    expect(api.info.description.length).toBeGreaterThan(100);
    // Every operation can answer 5xx through the sandbox's faults: each declares 500, and 503 with Retry-After.
    for (const [path, item] of Object.entries<any>(api.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!op?.responses) continue;
        expect(op.responses["500"], `${method} ${path}`).toBeDefined();
        expect(op.responses["503"]?.headers?.["Retry-After"], `${method} ${path}`).toBeDefined();
      }
    }
  });
  it("names every example so that Prism's Prefer header can ask for it (no comma: Prefer splits on commas)", () => {
    const titles = ops.flatMap(({ op }) => Object.values<any>(op.responses ?? {}).flatMap((res) => Object.keys(deref(res)?.content?.["application/json"]?.examples ?? {})));
    expect(titles.length).toBeGreaterThan(50);
    expect(titles.filter((t) => t.includes(","))).toEqual([]);
  });
});
