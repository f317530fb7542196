/**
 * deprecated: every response of `GET /v1/experiments`, errors included, carries Deprecation and a valid Sunset; the
 * endpoints beside it, its replacement first, announce no end.
 */
import type { Check } from "../check.ts";
import { deprecationRules, deprecationVerdicts } from "../judge/deprecation.ts";

const r = deprecationRules;

export const deprecatedCheck: Check = {
  name: "deprecated",
  description: "GET /v1/experiments carries Deprecation and Sunset headers on every response",
  rules: r,
  operations: ["listExperiments"],
  async run(ctx) {
    for (const [key, path] of [[undefined, "/v1/experiments"], [null, "/v1/experiments"], ["svc_live_bogus", "/v1/experiments"], [undefined, "/v1/experiments?unexpected=1"]] as const) {
      const reply = await ctx.http.req(path, { key });
      for (const [rule, ok, message] of deprecationVerdicts("GET", path, reply.status, reply.headers)) ctx.expect(rule, ok, message, reply);
      if (key === undefined && path === "/v1/experiments") {
        ctx.expect(r.answers, reply.status === 200, `GET /v1/experiments answered ${reply.status}`, reply);
        ctx.conforms(reply, "GET /v1/experiments");
      }
    }
    // The replacement is not deprecated: a Sunset on /v1/studies would tell every client the study list goes away.
    // Every response of theirs, as every response of the deprecated one carries it: with the key, and without (401).
    for (const path of ["/v1/studies", "/v1/interviews", "/v1/releases", "/v1/chats", "/v1/webhooks"]) {
      for (const key of [undefined, null] as const) {
        const reply = await ctx.http.req(path, { key });
        for (const [rule, ok, message] of deprecationVerdicts("GET", path, reply.status, reply.headers)) ctx.expect(rule, ok, message, reply);
      }
    }
  },
};
