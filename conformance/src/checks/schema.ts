/**
 * schema: every response of every read operation matches the contract (each judgement under its own rule and
 * level: contract.ts), for valid requests, for generated bad query values, and for unknown routes and methods.
 */
import fc from "fast-check";
import type { Check, Ctx } from "../check.ts";
import { NEVER_ID, snapshot } from "../data.ts";
import { errorMessage } from "../http.ts";
import { contract, rules, seed } from "../rules.ts";

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

    if (!ctx.options.sim) return ctx.untested("malformed PUT /v1/webhooks bodies", "PUT writes the webhook configuration: needs --sim");
    for (const rawBody of ["{", "[]", "\"x\"", "{\"url\": 1}", "{\"url\": \"https://example.com/h\"}"]) {
      const reply = await ctx.http.req("/v1/webhooks", { method: "PUT", rawBody, headers: { "content-type": "application/json" } });
      ctx.expect(r["bad-json"], reply.status === 400, `PUT /v1/webhooks with body ${rawBody} answered ${reply.status} ${errorMessage(reply.body) ?? ""}, not 400`, reply);
      ctx.conforms(reply, "PUT /v1/webhooks");
    }
  },
};
