/** filters: every interview filter, alone and combined, returns exactly the matching items of the full list, in order. */
import fc from "fast-check";
import { holds, type Check } from "../check.ts";
import { CheckFailure } from "../http.ts";

export const filtersCheck: Check = {
  name: "filters",
  description: "interview and release filters return only matching items, and all of them",
  async run(ctx) {
    // A fresh listing, not the shared snapshot: with --sim, earlier checks create interviews.
    const all = (await ctx.http.walk("/v1/interviews", 100)).items;
    const releases = (await ctx.http.walk("/v1/releases", 100)).items;
    const values = {
      study_id: [...new Set(all.map((i: any) => i.study_id as string))].slice(0, 6),
      status: ["started", "processing", "completed"],
      reference_id: [...new Set(all.map((i: any) => i.reference_id as string).filter((r) => r))].slice(0, 6),
      quality_score: ["insightful", "successful", "unsuccessful"],
    };
    const arb = fc.record({
      study_id: fc.option(fc.constantFrom(...(values.study_id.length ? values.study_id : ["00000000-0000-4000-8000-000000000000"])), { nil: undefined }),
      status: fc.option(fc.constantFrom(...values.status), { nil: undefined }),
      reference_id: fc.option(fc.constantFrom(...(values.reference_id.length ? values.reference_id : ["nobody"])), { nil: undefined }),
      quality_score: fc.option(fc.constantFrom(...values.quality_score), { nil: undefined }),
    });
    await holds(ctx, "interview filters", arb, async (filter) => {
      const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== undefined) as Array<[string, string]>);
      const path = `/v1/interviews${q.size ? `?${q}` : ""}`;
      const { items, pages } = await ctx.http.walk(path, 100);
      const want = all.filter((i: any) => Object.entries(filter).every(([k, v]) => v === undefined || i[k] === v)).map((i: any) => i.id);
      const got = items.map((i: any) => i.id);
      const wrong = items.find((i: any) => Object.entries(filter).some(([k, v]) => v !== undefined && i[k] !== v));
      if (wrong) throw new CheckFailure(`${path} returned ${wrong.id}, which does not match`, { reply: pages[0] });
      if (got.join() !== want.join()) throw new CheckFailure(`${path} returned ${got.length} items; the full list has ${want.length} matching ones (in that order)`, { reply: pages[0] });
    });
    for (const status of ["active", "dismissed"]) {
      const { items, pages } = await ctx.http.walk(`/v1/releases?status=${status}`, 100);
      const want = releases.filter((r: any) => r.status === status).map((r: any) => r.id);
      if (items.map((r: any) => r.id).join() !== want.join()) throw new CheckFailure(`/v1/releases?status=${status} does not return exactly the ${status} releases`, { reply: pages[0] });
    }
  },
};
