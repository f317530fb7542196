/**
 * schema: every response of every operation matches the contract (declared status, JSON content type,
 * body schema, required headers, no undeclared fields), for valid requests, for generated bad inputs, and for
 * unknown routes and methods.
 */
import fc from "fast-check";
import { conforms, holds, type Check, type Ctx } from "../check.ts";
import { NEVER_ID, snapshot } from "../data.ts";
import { expectThat } from "../http.ts";

const LISTS = ["/v1/studies", "/v1/interviews", "/v1/releases", "/v1/chats"];

async function readPaths(ctx: Ctx): Promise<string[]> {
  const s = await snapshot(ctx.http);
  const first = (xs: any[]) => xs[0]?.id ?? NEVER_ID;
  const paths = [
    ...LISTS,
    "/v1/experiments",
    `/v1/studies/${first(s.studies)}`, `/v1/interviews/${first(s.interviews)}`, `/v1/releases/${first(s.releases)}`, `/v1/chats/${first(s.chats)}`,
    `/v1/chats/${first(s.chats)}/messages`, "/v1/webhooks",
    `/v1/studies/${NEVER_ID}`, `/v1/interviews/${NEVER_ID}`, `/v1/releases/${NEVER_ID}`, `/v1/chats/${NEVER_ID}`, `/v1/chats/${NEVER_ID}/messages`,
    "/v1/studies/not-a-uuid", `/v1/interviews?status=${encodeURIComponent("nope")}`,
  ];
  for (const status of ["completed", "started", "processing"]) paths.push(`/v1/interviews?status=${status}`);
  for (const i of s.interviews.slice(0, 3)) paths.push(`/v1/interviews/${i.id}`, `/v1/interviews?study_id=${i.study_id}`);
  for (const c of s.chats.slice(0, 5)) paths.push(`/v1/chats/${c.id}`, `/v1/chats/${c.id}/messages`);
  for (const r of s.releases.slice(0, 3)) paths.push(`/v1/releases/${r.id}`);
  for (const st of s.studies.slice(0, 3)) paths.push(`/v1/studies/${st.id}`);
  if (ctx.options.sim) paths.push("/_sim/webhook-deliveries");
  return paths;
}

export const schemaCheck: Check = {
  name: "schema",
  description: "every response of every operation matches the contract, including errors and unknown routes",
  async run(ctx) {
    for (const path of await readPaths(ctx)) conforms(ctx, await ctx.http.req(path), `GET ${path}`);

    const listOrMessages = async () => {
      const s = await snapshot(ctx.http);
      return [...LISTS, ...(s.chats[0] ? [`/v1/chats/${s.chats[0].id}/messages`] : [])];
    };
    const lists = await listOrMessages();
    const odd = fc.oneof(fc.integer({ min: -5, max: 205 }).map(String), fc.constantFrom("", "abc", "1.5", "1e2", "0x10", " 7", "١٢"), fc.string({ maxLength: 6 }));
    await holds(ctx, "generated query parameters", fc.record({
      path: fc.constantFrom(...lists),
      limit: fc.option(odd, { nil: undefined }),
      starting_after: fc.option(fc.oneof(fc.uuid(), fc.string({ maxLength: 40 })), { nil: undefined }),
      extra: fc.option(fc.constantFrom("studyId", "page", "offset", "expand"), { nil: undefined }),
    }), async ({ path, limit, starting_after, extra }) => {
      const q = new URLSearchParams();
      if (limit !== undefined) q.set("limit", limit);
      if (starting_after !== undefined) q.set("starting_after", starting_after);
      if (extra !== undefined) q.set(extra, "1");
      const reply = await ctx.http.req(`${path}${q.size ? `?${q}` : ""}`);
      conforms(ctx, reply, `GET ${reply.path}`);
    });

    await holds(ctx, "generated unknown routes", fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter((s) => !["studies", "interviews", "releases", "chats", "webhooks", "experiments", "interview-participant"].includes(s)), async (segment) => {
      const reply = await ctx.http.req(`/v1/${segment}`);
      expectThat(reply.status === 404, `unknown route /v1/${segment} answered ${reply.status}, not 404`, reply);
      conforms(ctx, reply, `GET /v1/${segment}`);
    });

    for (const [method, path] of [["PATCH", "/v1/studies"], ["POST", "/v1/chats"], ["DELETE", "/v1/interviews"]]) {
      const reply = await ctx.http.req(path, { method });
      expectThat(reply.status === 405 || reply.status === 404, `${method} ${path} answered ${reply.status}, not 405 or 404`, reply);
      conforms(ctx, { ...reply, method: "UNKNOWN" }, `${method} ${path}`);
    }

    for (const rawBody of ["{", "[]", "\"x\"", "{\"url\": 1}"]) {
      if (!ctx.options.sim) break; // PUT /v1/webhooks writes; only with --sim
      const reply = await ctx.http.req("/v1/webhooks", { method: "PUT", rawBody, headers: { "content-type": "application/json" } });
      expectThat(reply.status === 400, `PUT /v1/webhooks with body ${rawBody} answered ${reply.status}, not 400`, reply);
      conforms(ctx, reply, "PUT /v1/webhooks");
    }
  },
};
