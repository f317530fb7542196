/** filters: every interview filter, alone and combined, returns exactly the matching items of the full list. */
import fc from "fast-check";
import type { Check } from "../check.ts";
import { NEVER_ID } from "../data.ts";
import { contract, rules, seed } from "../rules.ts";

const r = rules("filters", {
  matching: seed("Endpoints: GET /v1/interviews filters, GET /v1/releases status", "a filtered list returns every matching item of the full list and nothing else"),
  order: contract("ordering", "a filtered list keeps the full list's order"),
});

export const filtersCheck: Check = {
  name: "filters",
  description: "interview and release filters return only matching items, and all of them",
  rules: r,
  operations: ["listInterviews", "listReleases"],
  async run(ctx) {
    // A fresh listing, not the shared snapshot: with --sim, earlier checks create interviews.
    const all = (await ctx.http.walk("/v1/interviews", 100)).items;
    const releases = (await ctx.http.walk("/v1/releases", 100)).items;
    const values = {
      study_id: [...new Set(all.map((i: any) => i.study_id as string))].slice(0, 6),
      status: ["started", "processing", "completed"],
      reference_id: [...new Set(all.map((i: any) => i.reference_id as string).filter((x) => x))].slice(0, 6),
      quality_score: ["insightful", "successful", "unsuccessful"],
    };
    const arb = fc.record({
      study_id: fc.option(fc.constantFrom(...(values.study_id.length ? values.study_id : [NEVER_ID])), { nil: undefined }),
      status: fc.option(fc.constantFrom(...values.status), { nil: undefined }),
      reference_id: fc.option(fc.constantFrom(...(values.reference_id.length ? values.reference_id : ["nobody"])), { nil: undefined }),
      quality_score: fc.option(fc.constantFrom(...values.quality_score), { nil: undefined }),
    });
    await ctx.holds("interview filters", arb, async (filter) => {
      const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== undefined) as Array<[string, string]>);
      const path = `/v1/interviews${q.size ? `?${q}` : ""}`;
      const { items, pages } = await ctx.http.walk(path, 100);
      const want = all.filter((i: any) => Object.entries(filter).every(([k, v]) => v === undefined || i[k] === v)).map((i: any) => i.id);
      const got = items.map((i: any) => i.id);
      const wrong = items.find((i: any) => Object.entries(filter).some(([k, v]) => v !== undefined && i[k] !== v));
      ctx.expect(r.matching, !wrong, `${path} returned ${wrong?.id}, which does not match`, pages[0]);
      ctx.expect(r.matching, [...got].sort().join() === [...want].sort().join(), `${path} returned ${got.length} items; the full list has ${want.length} matching ones`, pages[0]);
      ctx.expect(r.order, got.join() === want.join() || [...got].sort().join() !== [...want].sort().join(), `${path} returned the matching items in another order than the full list`, pages[0]);
    });
    for (const status of ["active", "dismissed"]) {
      const { items, pages } = await ctx.http.walk(`/v1/releases?status=${status}`, 100);
      const want = releases.filter((x: any) => x.status === status).map((x: any) => x.id).sort().join();
      ctx.expect(r.matching, items.map((x: any) => x.id).sort().join() === want, `/v1/releases?status=${status} does not return exactly the ${status} releases`, pages[0]);
    }
  },
};
