/** deprecated: every response of `GET /v1/experiments`, errors included, carries Deprecation and a valid Sunset. */
import { conforms, type Check } from "../check.ts";
import { expectThat } from "../http.ts";

const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

export const deprecatedCheck: Check = {
  name: "deprecated",
  description: "GET /v1/experiments carries Deprecation and Sunset headers on every response",
  operations: ["listExperiments"],
  async run(ctx) {
    for (const key of [undefined, null, "svc_live_bogus"]) {
      const reply = await ctx.http.req("/v1/experiments", { key });
      const sunset = reply.headers.get("sunset");
      expectThat(reply.headers.has("deprecation"), `GET /v1/experiments (${reply.status}) has no Deprecation header`, reply);
      expectThat(sunset !== null && HTTP_DATE.test(sunset) && !Number.isNaN(Date.parse(sunset)), `GET /v1/experiments (${reply.status}) has no valid Sunset HTTP-date: ${sunset}`, reply);
      if (key === undefined) {
        expectThat(reply.status === 200, `GET /v1/experiments answered ${reply.status}`, reply);
        expectThat(new Date(sunset!).toISOString().startsWith("2026-07-0"), `Sunset ${sunset} is not the seed's July 1, 2026`, reply);
        conforms(ctx, reply, "GET /v1/experiments");
      }
    }
  },
};
