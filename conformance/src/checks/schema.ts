/**
 * schema: every response of every read operation matches the contract (each judgement under its own rule and
 * level: contract.ts), for valid requests, for generated bad query values, for each query parameter given twice and
 * empty and each path with a trailing slash, for unknown routes and methods, and for malformed webhook bodies.
 */
import fc from "fast-check";
import type { Check, Ctx } from "../check.ts";
import { NEVER_ID, pathWithId, snapshot } from "../data.ts";
import { errorMessage } from "../http.ts";
import { contract, rules, seed } from "../rules.ts";
import type { Contract, Operation } from "../contract.ts";

const LISTS = ["/v1/studies", "/v1/interviews", "/v1/releases", "/v1/chats"];

const r = rules("schema", {
  "unknown-route": contract("unknown routes", "an unknown /v1 route answers 404 in the error envelope"),
  "wrong-method": contract("unknown methods", "a method a path does not have answers 405 (or 404)"),
  "bad-json": seed("Errors: 400 invalid request body", "a malformed or mistyped JSON body on PUT /v1/webhooks answers 400", ["errors.400", "endpoints.put-webhook"]),
  "non-uuid-id": seed("Endpoints: paths with :id take a UUID", "a path id that is not a UUID is refused with 400 or 404, never answered with a resource or a 5xx", ["endpoints.uuid-paths"]),
  "unknown-id": seed("Errors 1: a single-resource retrieval returns 404 when the id does not exist", "retrieving a UUID that names nothing answers 404, on every retrieval", ["errors.retrieval-404", "errors.404", "endpoints.get-study", "endpoints.get-interview", "endpoints.get-release", "endpoints.get-chat"]),
  "bad-id": contract("order of checks", "a path id that is not a UUID answers 400 (not 404, not 5xx)"),
});

async function readPaths(ctx: Ctx): Promise<string[]> {
  const s = await snapshot(ctx.http);
  const first = (xs: any[]) => xs[0]?.id ?? NEVER_ID;
  const paths = [
    ...LISTS,
    // A removed deprecated endpoint (past its day) has no answer of the contract's to judge.
    ...(ctx.experimentsRemoved ? [] : ["/v1/experiments"]),
    `/v1/studies/${first(s.studies)}`, `/v1/interviews/${first(s.interviews)}`, `/v1/releases/${first(s.releases)}`, `/v1/chats/${first(s.chats)}`,
    `/v1/chats/${first(s.chats)}/messages`, "/v1/webhooks",
    `/v1/studies/${NEVER_ID}`, `/v1/interviews/${NEVER_ID}`, `/v1/releases/${NEVER_ID}`, `/v1/chats/${NEVER_ID}`, `/v1/chats/${NEVER_ID}/messages`,
    `/v1/interviews?status=${encodeURIComponent("nope")}`,
  ];
  for (const status of ["completed", "started", "processing"]) paths.push(`/v1/interviews?status=${status}`);
  for (const i of s.interviews.slice(0, 3)) paths.push(`/v1/interviews/${i.id}`, `/v1/interviews?study_id=${i.study_id}`);
  for (const c of s.chats.slice(0, 5)) paths.push(`/v1/chats/${c.id}`, `/v1/chats/${c.id}/messages`);
  for (const x of s.releases.slice(0, 3)) paths.push(`/v1/releases/${x.id}`);
  for (const st of s.studies.slice(0, 3)) paths.push(`/v1/studies/${st.id}`);
  return paths;
}

/**
 * A read's query in the forms a client may send that the seed does not describe: each parameter the operation declares
 * given twice (two values its schema takes, then one of them twice) and empty, and each UUID parameter not a UUID.
 */
function requestForms(contract: Contract, op: Operation): string[] {
  const forms: string[] = [];
  for (const { name: declared, schema: sc } of contract.queryParameters(op)) {
    const [a, b] = Array.isArray(sc?.enum) ? [sc.enum[0], sc.enum[1] ?? sc.enum[0]] : sc?.format === "uuid" ? [NEVER_ID, "00000000-0000-4000-8000-000000000001"] : sc?.type === "integer" ? [sc.minimum ?? 1, (sc.minimum ?? 1) + 1] : ["a", "b"];
    const name = encodeURIComponent(declared);
    forms.push(`${name}=${a}&${name}=${b}`, `${name}=${a}&${name}=${a}`, `${name}=`);
    if (sc?.format === "uuid") forms.push(`${name}=not-a-uuid`);
  }
  return forms;
}

/** JSON that is malformed, or of a type other than an object. */
const OTHER_JSON = ["{", "[]", "\"x\"", "null", "42", "true"];

/** The names of the properties a schema declares, through its compositions. */
function propertyNames(contract: Contract, schema: unknown, depth = 0): string[] {
  const sc = contract.resolve(schema);
  if (!sc || depth > 4) return [];
  const own = Object.keys(sc.properties ?? {});
  const parts = [...(sc.oneOf ?? []), ...(sc.anyOf ?? []), ...(sc.allOf ?? [])].flatMap((x: unknown) => propertyNames(contract, x, depth + 1));
  return [...new Set([...own, ...parts])];
}

/** A body per field the operation's request declares, the field alone and of another type: a number, null, a list, an object. */
function mistypedFields(contract: Contract, op: Operation): string[] {
  const schema = contract.resolve(op.op.requestBody)?.content?.["application/json"]?.schema;
  return propertyNames(contract, schema).flatMap((name) => ["42", "null", "[1]", "{\"x\": 1}"].map((v) => `{${JSON.stringify(name)}: ${v}}`));
}

export const schemaCheck: Check = {
  name: "schema",
  description: "every response of every read operation matches the contract, including errors and unknown routes",
  rules: r,
  operations: ["listStudies", "getStudy", "listInterviews", "getInterview", "listReleases", "getRelease", "listChats", "getChat", "listChatMessages"],
  async run(ctx) {
    for (const path of await readPaths(ctx)) ctx.conforms(await ctx.http.req(path), `GET ${path}`);

    for (const resource of ["studies", "interviews", "releases", "chats"]) {
      const reply = await ctx.http.req(`/v1/${resource}/not-a-uuid`);
      ctx.expect(r["non-uuid-id"], reply.status === 400 || reply.status === 404, `GET /v1/${resource}/not-a-uuid answered ${reply.status}, not 400 or 404`, reply);
      ctx.expect(r["bad-id"], reply.status === 400, `GET /v1/${resource}/not-a-uuid answered ${reply.status}`, reply);
      const unknown = await ctx.http.req(`/v1/${resource}/${NEVER_ID}`);
      ctx.expect(r["unknown-id"], unknown.status === 404, `GET /v1/${resource}/${NEVER_ID} (no such ${resource}) answered ${unknown.status}, not 404`, unknown);
      ctx.conforms(reply, `GET /v1/${resource}/not-a-uuid`);
    }

    const s = await snapshot(ctx.http);
    const lists = [...LISTS, ...(s.chats[0] ? [`/v1/chats/${s.chats[0].id}/messages`] : [])];
    const odd = fc.oneof(fc.integer({ min: -5, max: 205 }).map(String), fc.constantFrom("", "abc", "1.5", " 7", "١٢"), fc.string({ maxLength: 6 }));
    await ctx.holds("generated query values", fc.record({
      path: fc.constantFrom(...lists),
      limit: fc.option(odd, { nil: undefined }),
      starting_after: fc.option(fc.oneof(fc.uuid(), fc.string({ maxLength: 40 })), { nil: undefined }),
    }), async ({ path, limit, starting_after }) => {
      const q = new URLSearchParams();
      if (limit !== undefined) q.set("limit", limit);
      if (starting_after !== undefined) q.set("starting_after", starting_after);
      const reply = await ctx.http.req(`${path}${q.size ? `?${q}` : ""}`);
      ctx.conforms(reply, `GET ${reply.path}`);
    });

    await ctx.holds("generated unknown routes", fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter((x) => !["studies", "interviews", "releases", "chats", "webhooks", "experiments", "interview-participant"].includes(x)), async (segment) => {
      const reply = await ctx.http.req(`/v1/${segment}`);
      ctx.expect(r["unknown-route"], reply.status === 404, `unknown route /v1/${segment} answered ${reply.status}, not 404`, reply);
      ctx.conforms(reply, `GET /v1/${segment}`);
    });

    for (const [method, path] of [["PATCH", "/v1/studies"], ["POST", "/v1/chats"], ["DELETE", "/v1/interviews"]]) {
      const reply = await ctx.http.req(path, { method });
      ctx.expect(r["wrong-method"], reply.status === 405 || reply.status === 404, `${method} ${path} answered ${reply.status}, not 405 or 404`, reply);
      ctx.conforms({ ...reply, method: "UNKNOWN" }, `${method} ${path}`);
    }

    // Every read with each query parameter it declares given twice (two values, and one value twice) and empty, each
    // UUID parameter not a UUID, and every read path with a trailing slash: answered as a request the seed describes
    // or refused, never a 5xx (each judged by conforms: response.no-5xx among the rest).
    for (const op of ctx.contract.operations.filter((o) => o.method === "GET" && o.tag !== "Simulation" && o.auth !== "public")) {
      const path = pathWithId(s, op.path);
      for (const form of requestForms(ctx.contract, op)) {
        const reply = await ctx.http.req(`${path}?${form}`);
        ctx.conforms(reply, `GET ${op.path}?${form}`);
      }
      const slashed = await ctx.http.req(`${path}/`);
      ctx.conforms({ ...slashed, method: "UNKNOWN" }, `GET ${op.path}/`);
    }

    // The participant endpoints, with the public key: the config's query in the same forms, and each body malformed, of
    // another JSON type, and each field the contract declares of another type or null. Their fields are not the
    // seed's, so no status is prescribed: answered or refused, never a 5xx.
    if (ctx.options.publicKey) {
      const headers = { "x-public-key": ctx.options.publicKey };
      for (const op of ctx.contract.operations.filter((o) => o.auth === "public" && o.tag !== "Simulation")) {
        if (op.method === "GET") {
          for (const form of requestForms(ctx.contract, op)) ctx.conforms(await ctx.http.req(`${op.path}?${form}`, { key: null, headers }), `GET ${op.path}?${form}`);
          continue;
        }
        for (const rawBody of [...OTHER_JSON, ...mistypedFields(ctx.contract, op)]) {
          const reply = await ctx.http.req(op.path, { key: null, method: op.method, rawBody, headers: { ...headers, "content-type": "application/json" } });
          ctx.conforms(reply, `${op.method} ${op.path} with body ${rawBody}`);
        }
      }
    } else ctx.untested("malformed participant requests", "needs --public-key");

    if (!ctx.options.sim) return ctx.untested("malformed PUT /v1/webhooks bodies", "PUT writes the webhook configuration: needs --sim");
    // Malformed JSON, JSON of another type, and each field of another type, null or missing.
    const url = JSON.stringify("https://example.com/h");
    const events = JSON.stringify(["interview.completed"]);
    for (const rawBody of [...OTHER_JSON, "{\"url\": 1}", "{\"url\": \"https://example.com/h\"}", `{"events": ${events}}`, `{"url": null, "events": ${events}}`, `{"url": [${url}], "events": ${events}}`, `{"url": {}, "events": ${events}}`, `{"url": ${url}, "events": null}`, `{"url": ${url}, "events": "interview.completed"}`, `{"url": ${url}, "events": {}}`, `{"url": ${url}, "events": [42]}`, `{"url": ${url}, "events": [null]}`, `{"url": ${url}, "events": [["interview.completed"]]}`]) {
      const reply = await ctx.http.req("/v1/webhooks", { method: "PUT", rawBody, headers: { "content-type": "application/json" } });
      ctx.expect(r["bad-json"], reply.status === 400, `PUT /v1/webhooks with body ${rawBody} answered ${reply.status} ${errorMessage(reply.body) ?? ""}, not 400`, reply);
      ctx.conforms(reply, "PUT /v1/webhooks");
    }
  },
};
