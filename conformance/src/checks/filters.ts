/**
 * filters: every interview filter, alone and combined, returns exactly the matching items of the full list, each as the
 * full list shows it.
 * Deterministic first: each filter alone with a value that matches and one that does not, every pair of filters
 * with values that match together and with one value that does not, and exact (not prefix or case-folded) matching
 * of reference_id; then every value of status and quality_score, each listing only its items whether or not one holds
 * it. Random combinations of all four add coverage.
 */
import { caseTwins, otherCaseAnswer, paddedTwins } from "../judge/other-case.ts";
import { interviewDiffers, mismatching, QUALITY_SCORES } from "../judge/shown.ts";
import fc from "fast-check";
import type { Check } from "../check.ts";
import { NEVER_ID } from "../data.ts";
import { contract, rules, seed } from "../rules.ts";

const FILTERS = ["study_id", "status", "reference_id", "quality_score"] as const;
const RELEASE_STATUSES = ["active", "dismissed"];
type Filter = Partial<Record<(typeof FILTERS)[number], string>>;

/** The listed items that read otherwise than the full list's item of their id (judge/shown.ts interviewDiffers). */
function alteredFrom(items: any[], full: Map<string, any>): Array<{ item: any; full: any; fields: string[] }> {
  return items.flatMap((item) => {
    const was = full.get(item?.id);
    const fields = was ? interviewDiffers(item, was, [...new Set([...Object.keys(item), ...Object.keys(was)])]) : [];
    return fields.length ? [{ item, full: was, fields }] : [];
  });
}

const r = rules("filters", {
  exact: seed("Endpoints: GET /v1/interviews reference_id (the value passed on the link)", "reference_id matches exactly: a prefix or another case of a value is another value", ["interview.reference-id", "endpoints.list-interviews"]),
  matching: seed("Endpoints: GET /v1/interviews filters, GET /v1/releases status", "a filtered list returns every matching item of the full list, each as the full list shows it, and nothing else", ["endpoints.list-interviews", "endpoints.list-releases", "interview.status", "release.status", "states.interview", "states.release", "interview.study-id"]),
  "enum-case": seed("Endpoints: GET /v1/interviews status, quality_score; GET /v1/releases status (`active` or `dismissed`)", "a filter's value in another case, or padded with a space, is another value: it matches nothing, or is refused with a 400 in the error envelope, never the items of the value it folds or trims to", ["endpoints.list-interviews", "endpoints.list-releases", "interview.status", "interview.quality-score", "release.status", "errors.400"]),
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
    const full = new Map(all.map((i: any) => [i.id, i]));
    const releases = (await ctx.http.walk("/v1/releases", 100)).items;
    const values = {
      study_id: [...new Set(all.map((i: any) => i.study_id as string))].slice(0, 6),
      status: ["started", "processing", "completed"],
      reference_id: [...new Set(all.map((i: any) => i.reference_id as string).filter((x) => x))].slice(0, 6),
      quality_score: [...QUALITY_SCORES],
    };
    const arb = fc.record({
      study_id: fc.option(fc.constantFrom(...(values.study_id.length ? values.study_id : [NEVER_ID])), { nil: undefined }),
      status: fc.option(fc.constantFrom(...values.status), { nil: undefined }),
      reference_id: fc.option(fc.constantFrom(...(values.reference_id.length ? values.reference_id : ["nobody"])), { nil: undefined }),
      quality_score: fc.option(fc.constantFrom(...values.quality_score), { nil: undefined }),
    });
    const judge = async (filter: Filter, rule = r.matching) => {
      const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== undefined) as Array<[string, string]>);
      const path = `/v1/interviews${q.size ? `?${q}` : ""}`;
      const { items, pages } = await ctx.http.walk(path, 100);
      const want = all.filter((i: any) => Object.entries(filter).every(([k, v]) => v === undefined || i[k] === v)).map((i: any) => i.id);
      const got = items.map((i: any) => i.id);
      const wrong = mismatching(items, filter)[0];
      ctx.expect(rule, !wrong, `${path} returned ${wrong?.id}, which does not match`, pages[0]);
      const altered = alteredFrom(items, full)[0];
      ctx.expect(rule, !altered, `${path} lists interview ${altered?.item.id} with ${altered?.fields.map((k) => `${k} ${JSON.stringify(altered.item[k])}`).join(", ")}, where the full list shows ${altered?.fields.map((k) => JSON.stringify(altered.full[k])).join(", ")}: a filter chooses items, it does not change them`, pages[0]);
      ctx.expect(rule, [...got].sort().join() === [...want].sort().join(), `${path} returned ${got.length} items; the full list has ${want.length} matching ones`, pages[0]);
      ctx.expect(r.order, got.join() === want.join() || [...got].sort().join() !== [...want].sort().join(), `${path} returned the matching items in another order than the full list`, pages[0]);
    };
    // A value of `f` that no interview matching `filter` has (so the pair matches nothing), or a value nobody has.
    const NOBODY: Record<(typeof FILTERS)[number], string> = { study_id: NEVER_ID, status: "started", reference_id: "conformance_nobody", quality_score: "unsuccessful" };
    const missing = (f: (typeof FILTERS)[number], within: any[]) => {
      const present = new Set(within.map((i: any) => i[f]));
      const candidates = f === "status" ? values.status : f === "quality_score" ? values.quality_score : [NOBODY[f]];
      return candidates.find((v) => !present.has(v)) ?? NOBODY[f];
    };
    const sample = all.find((i: any) => FILTERS.every((f) => typeof i[f] === "string")) ?? all[0];
    if (sample) {
      for (const f of FILTERS) {
        await judge({ [f]: sample[f] });
        await judge({ [f]: missing(f, all) });
      }
      for (let a = 0; a < FILTERS.length; a++) {
        for (let b = a + 1; b < FILTERS.length; b++) {
          const [fa, fb] = [FILTERS[a], FILTERS[b]];
          await judge({ [fa]: sample[fa], [fb]: sample[fb] });
          await judge({ [fa]: sample[fa], [fb]: missing(fb, all.filter((i: any) => i[fa] === sample[fa])) });
          await judge({ [fa]: missing(fa, all.filter((i: any) => i[fb] === sample[fb])), [fb]: sample[fb] });
        }
      }
      const ref: string = sample.reference_id;
      if (typeof ref === "string" && ref.length > 1) {
        for (const loose of [ref.slice(0, Math.ceil(ref.length / 2)), ref.toUpperCase() === ref ? ref.toLowerCase() : ref.toUpperCase(), ` ${ref}`]) {
          if (loose !== ref) await judge({ reference_id: loose }, r.exact);
        }
      }
    } else ctx.untested("deterministic filter cases", "the project has no interviews");
    await ctx.holds("interview filters", arb, (filter) => judge(filter));
    // Every enum value of every enum filter in two other cases (capitalized, upper) and padded with a space at either
    // end: as many requests as forms, each judged whether or not the value has items (one that has them shows a
    // folded or trimmed match; one that has none still must not answer with another's).
    const twins = (v: string) => [...caseTwins(v), ...paddedTwins(v)];
    const enumCases: Array<[string, string, string]> = [
      ...values.status.flatMap((v) => twins(v).map((t) => ["/v1/interviews", "status", t] as [string, string, string])),
      ...values.quality_score.flatMap((v) => twins(v).map((t) => ["/v1/interviews", "quality_score", t] as [string, string, string])),
      ...RELEASE_STATUSES.flatMap((v) => twins(v).map((t) => ["/v1/releases", "status", t] as [string, string, string])),
    ];
    // A target that needs study_id on the interview list is asked within a study that has interviews.
    const within = (await ctx.http.needsStudyId()) && values.study_id[0] ? `study_id=${values.study_id[0]}&` : "";
    for (const [list, param, value] of enumCases) {
      const path = `${list}?${list === "/v1/interviews" ? within : ""}${param}=${encodeURIComponent(value)}`;
      const reply = await ctx.http.req(path);
      const { ok, items } = otherCaseAnswer(reply);
      ctx.expect(r["enum-case"], ok, `${path} answered ${reply.status}${items.length ? ` with ${items.length} item(s) (${items.slice(0, 3).map((x) => `${x.id}: ${param} ${JSON.stringify(x[param])}`).join(", ")})` : ""}: no item has ${param} ${JSON.stringify(value)}, so it matches nothing or is refused`, reply);
      if (reply.status === 400) ctx.conforms(reply, `${list} with an unknown ${param}`);
    }
    // Every value of each enum filter, whether or not an interview holds it now: what is listed matches it. Read in the
    // same answer as the list, so a status that changes meanwhile (a processing interview completing) never misleads;
    // a value no interview holds (often processing) shows a filter that ignores it.
    for (const [param, vals] of [["status", values.status], ["quality_score", values.quality_score]] as const) {
      for (const value of vals) {
        const { items, pages } = await ctx.http.walk(`/v1/interviews?${within}${param}=${value}`, 100);
        const wrong = mismatching(items, { [param]: value });
        const altered = alteredFrom(items, full)[0];
        ctx.expect(r.matching, !altered, `/v1/interviews?${within}${param}=${value} lists interview ${altered?.item.id} with ${altered?.fields.map((k) => `${k} ${JSON.stringify(altered.item[k])}`).join(", ")}, where the full list shows ${altered?.fields.map((k) => JSON.stringify(altered.full[k])).join(", ")}: a filter chooses items, it does not change them`, pages[0]);
        ctx.expect(r.matching, wrong.length === 0, `/v1/interviews?${within}${param}=${value} listed ${wrong.length} interview(s) whose ${param} is not ${value} (${wrong.slice(0, 3).map((x) => `${x?.id}: ${JSON.stringify(x?.[param])}`).join(", ")})`, pages[0]);
      }
    }
    for (const status of RELEASE_STATUSES) {
      const { items, pages } = await ctx.http.walk(`/v1/releases?status=${status}`, 100);
      const want = releases.filter((x: any) => x.status === status).map((x: any) => x.id).sort().join();
      ctx.expect(r.matching, items.map((x: any) => x.id).sort().join() === want, `/v1/releases?status=${status} does not return exactly the ${status} releases`, pages[0]);
    }
  },
};
