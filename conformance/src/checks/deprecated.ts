/**
 * deprecated: every response of `GET /v1/experiments`, errors included, carries Deprecation and a valid Sunset; the
 * endpoints beside it, its replacement first, announce no end.
 */
import type { Check } from "../check.ts";
import { contract, rules, seed } from "../rules.ts";

const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

const r = rules("deprecated", {
  headers: seed("Versioning 3", "every response of GET /v1/experiments, errors included, carries Deprecation and a Sunset HTTP-date", ["versioning.deprecated", "endpoints.experiments"]),
  sunset: seed("Versioning 3: removed after July 1, 2026", "Sunset is July 1, 2026", ["versioning.deprecated"]),
  answers: seed("Endpoints: GET /v1/experiments", "GET /v1/experiments with a valid key answers 200", ["endpoints.experiments", "errors.200"]),
  "only-deprecated": seed("Versioning 3: GET /v1/experiments is deprecated and GET /v1/studies replaces it", "only the deprecated endpoint announces its end: the endpoints that replace and stand beside it (studies, interviews, releases, chats, webhooks) carry no Deprecation or Sunset header on any response, errors included", ["versioning.deprecated"]),
  link: contract("deprecated endpoint", "every response carries Link: </api/v1/studies>; rel=\"successor-version\""),
});

export const deprecatedCheck: Check = {
  name: "deprecated",
  description: "GET /v1/experiments carries Deprecation and Sunset headers on every response",
  rules: r,
  operations: ["listExperiments"],
  async run(ctx) {
    for (const [key, path] of [[undefined, "/v1/experiments"], [null, "/v1/experiments"], ["svc_live_bogus", "/v1/experiments"], [undefined, "/v1/experiments?unexpected=1"]] as const) {
      const reply = await ctx.http.req(path, { key });
      const sunset = reply.headers.get("sunset");
      ctx.expect(r.headers, reply.headers.has("deprecation") && sunset !== null && HTTP_DATE.test(sunset) && !Number.isNaN(Date.parse(sunset)), `GET ${path} (${reply.status}) has Deprecation ${reply.headers.get("deprecation")} and Sunset ${sunset}`, reply);
      ctx.expect(r.link, /<[^>]*\/v1\/studies>;\s*rel="?successor-version"?/.test(reply.headers.get("link") ?? ""), `GET ${path} (${reply.status}) has Link ${reply.headers.get("link")}`, reply);
      if (key === undefined && path === "/v1/experiments") {
        ctx.expect(r.answers, reply.status === 200, `GET /v1/experiments answered ${reply.status}`, reply);
        ctx.expect(r.sunset, sunset !== null && !Number.isNaN(Date.parse(sunset)) && new Date(sunset).toISOString().startsWith("2026-07-0"), `Sunset ${sunset} is not the seed's July 1, 2026`, reply);
        ctx.conforms(reply, "GET /v1/experiments");
      }
    }
    // The replacement is not deprecated: a Sunset on /v1/studies would tell every client the study list goes away.
    // Every response of theirs, as every response of the deprecated one carries it: with the key, and without (401).
    for (const path of ["/v1/studies", "/v1/interviews", "/v1/releases", "/v1/chats", "/v1/webhooks"]) {
      for (const key of [undefined, null] as const) {
        const reply = await ctx.http.req(path, { key });
        const announced = ["deprecation", "sunset"].filter((h) => reply.headers.has(h));
        ctx.expect(r["only-deprecated"], announced.length === 0, `GET ${path} (${reply.status}) carries ${announced.join(" and ")}: only GET /v1/experiments is deprecated (GET /v1/studies replaces it)`, reply);
      }
    }
  },
};
