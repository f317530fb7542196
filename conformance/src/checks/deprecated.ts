/**
 * deprecated: every response of `GET /v1/experiments`, errors included, carries Deprecation and a valid Sunset; the
 * endpoints beside it, its replacement first, announce no end. Past July 1, 2026 the seed lets the endpoint be gone:
 * when the run read it so (ctx.experimentsRemoved), it is judged gone for every request instead.
 */
import type { Check } from "../check.ts";
import type { Http } from "../http.ts";
import { deprecationRules, deprecationVerdicts, removedAnswer, removedEarly } from "../judge/deprecation.ts";

const r = deprecationRules;

export const deprecatedCheck: Check = {
  name: "deprecated",
  description: "GET /v1/experiments carries Deprecation and Sunset headers on every response",
  rules: r,
  operations: ["listExperiments"],
  async run(ctx) {
    const removed = ctx.experimentsRemoved;
    if (removed) ctx.note(removed);
    for (const [key, path] of [[undefined, "/v1/experiments"], [null, "/v1/experiments"], ["svc_live_bogus", "/v1/experiments"], [undefined, "/v1/experiments?unexpected=1"]] as const) {
      const reply = await ctx.http.req(path, { key });
      for (const [rule, ok, message] of deprecationVerdicts("GET", path, reply.status, reply.headers, !!removed)) ctx.expect(rule, ok, message, reply);
      const keyed = key === undefined;
      // Removed is removed for every request: with the key, with none (401 may come first), whatever the query.
      if (removed) ctx.expect(r.removed, keyed ? removedAnswer(reply.status) : reply.status === 401 || removedAnswer(reply.status), `GET ${path} ${keyed ? "with the key" : key === null ? "without a key" : "with an unknown key"} answered ${reply.status}, though GET /v1/experiments with the key answered as removed (404 or 410)`, reply);
      else if (keyed && path === "/v1/experiments") {
        // A 404 or 410 before July 1, 2026 is a removal before its day; a 5xx or another status is no answer at all.
        const early = removedEarly(reply.status);
        ctx.expect(r.answers, reply.status === 200, `GET /v1/experiments answered ${reply.status}${early ? " before the day the seed removes it (after July 1, 2026)" : ""}`, reply);
        ctx.expect(r.removed, !early, `GET /v1/experiments answered ${reply.status}: removed before the day the seed removes it (after July 1, 2026)`, reply);
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

/**
 * Whether the run reads GET /v1/experiments as removed: its answer to the run's key is 404 or 410, and the seed's
 * day of removal (after July 1, 2026) has passed. Asked once, before the checks, so that every check reads it alike.
 */
export async function experimentsRemoval(http: Http): Promise<string | undefined> {
  const reply = await http.req("/v1/experiments").catch(() => undefined);
  if (!reply || !removedAnswer(reply.status)) return undefined;
  return `GET /v1/experiments answered ${reply.status} to the run's key: read as removed, as Versioning 3 announces after July 1, 2026; the report's contents and announcement headers are not judged (the deprecated check judges it gone for every request)`;
}
