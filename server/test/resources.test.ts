// Studies, interviews and releases: list-only vs detail-only fields, filters, derived usage and the
// accepting_responses rule, checked against an oracle recomputed from the fixture file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acme, dataset, expected } from "./oracle.ts";
import { ANCHOR_MS, NEVER, startApi, type Api } from "./helpers.ts";

let api: Api;
beforeAll(async () => void (api = await startApi()));
afterAll(() => api.server.close());

const want = expected(acme.id);
const DAY = 86_400_000;
const weekStart = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY;
};
const monthStart = (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), 1);

describe("studies", () => {
  it("lists active studies only, without detail-only fields", async () => {
    const { items } = await api.walk("/v1/studies", 100);
    expect(items.every((s) => s.status === "active")).toBe(true);
    for (const s of items) for (const f of ["research_goal", "product_name", "questions", "interview_count"]) expect(s).not.toHaveProperty(f);
  });

  it("retrieves a study in any status with its detail-only fields", async () => {
    for (const status of ["active", "paused", "draft"]) {
      const s = want.allStudies.find((x) => x.status === status)!;
      const res = await api.req(`/v1/studies/${s.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: s.id, status, research_goal: s.research_goal, questions: s.questions });
      const completed = want.interviews.filter((i) => i.study_id === s.id && i.status === "completed").length;
      expect(res.body.interview_count).toBe(completed);
    }
  });

  it("derives limits.used from interviews in the UTC week (Monday 00:00) and month, and accepting_responses from status and limits", async () => {
    const ws = new Date(weekStart(ANCHOR_MS)).toISOString();
    const ms = new Date(monthStart(ANCHOR_MS)).toISOString();
    let exhausted = 0;
    let unlimited = 0;
    for (const s of want.allStudies) {
      const res = await api.req(`/v1/studies/${s.id}`);
      const mine = want.interviews.filter((i) => i.study_id === s.id);
      const weekly = mine.filter((i) => i.created_at >= ws).length;
      const monthly = mine.filter((i) => i.created_at >= ms).length;
      expect(res.body.limits).toEqual({ monthly: { limit: s.monthly_limit, used: monthly }, weekly: { limit: s.weekly_limit, used: weekly } });
      const within = (l: number | null, used: number) => l === null || used < l;
      const accepting = s.status === "active" && within(s.monthly_limit, monthly) && within(s.weekly_limit, weekly);
      expect(res.body.accepting_responses).toBe(accepting);
      if (s.status === "active" && !accepting) exhausted++;
      if (s.monthly_limit === null && s.weekly_limit === null) unlimited++;
    }
    expect(exhausted).toBeGreaterThan(0);
    expect(unlimited).toBeGreaterThan(0);
  });

  it("404 for an unknown study", async () => {
    const res = await api.req(`/v1/studies/${NEVER}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { type: "not_found_error", message: `No such study: ${NEVER}` } });
  });
});

describe("interviews", () => {
  it("list items carry no transcript or question answers; retrieval does", async () => {
    const list = await api.req("/v1/interviews?limit=5");
    for (const i of list.body.data) {
      expect(i).not.toHaveProperty("transcript");
      expect(i).not.toHaveProperty("question_answers");
      expect(i).not.toHaveProperty("project_id");
      expect(i).not.toHaveProperty("respondent_id");
    }
    const one = await api.req(`/v1/interviews/${list.body.data[0].id}`);
    expect(Array.isArray(one.body.transcript)).toBe(true);
    expect(Array.isArray(one.body.question_answers)).toBe(true);
  });

  it("non-English transcripts carry translations, English ones do not", async () => {
    const de = want.interviews.find((i) => i.language !== "en" && i.transcript.length > 0)!;
    const en = want.interviews.find((i) => i.language === "en" && i.transcript.length > 0)!;
    const deRes = await api.req(`/v1/interviews/${de.id}`);
    expect(deRes.body.transcript.every((t: any) => typeof t.translated === "string")).toBe(true);
    const enRes = await api.req(`/v1/interviews/${en.id}`);
    expect(enRes.body.transcript.some((t: any) => "translated" in t)).toBe(false);
  });

  const filters: Array<[string, (i: any) => boolean]> = [];
  const ref = want.interviews.map((i) => i.reference_id).find((r, _n, all) => r !== "" && all.filter((x) => x === r).length > 1)!;
  filters.push([`reference_id=${ref}`, (i) => i.reference_id === ref]);
  for (const s of ["started", "processing", "completed"]) filters.push([`status=${s}`, (i) => i.status === s]);
  for (const q of ["insightful", "successful", "unsuccessful"]) filters.push([`quality_score=${q}`, (i) => i.quality_score === q]);
  const study = want.studies[0];
  filters.push([`study_id=${study.id}&quality_score=successful`, (i) => i.study_id === study.id && i.quality_score === "successful"]);
  filters.push([`study_id=${study.id}&status=completed&reference_id=${ref}`, (i) => i.study_id === study.id && i.status === "completed" && i.reference_id === ref]);

  it.each(filters)("filter %s returns exactly the matching interviews", async (query, match) => {
    const { items } = await api.walk(`/v1/interviews?${query}`, 50);
    expect(items.map((i) => i.id)).toEqual(want.interviews.filter(match).map((i) => i.id));
  });
});

describe("releases", () => {
  it("newest merged_at first; description only on retrieval; status filter", async () => {
    const { items } = await api.walk("/v1/releases", 100);
    expect(items.map((r) => r.id)).toEqual(want.releases.map((r) => r.id));
    expect(items.some((r) => "vcs_pr_description" in r)).toBe(false);
    const one = await api.req(`/v1/releases/${items[0].id}`);
    expect(one.body.vcs_pr_description).toBe(want.releases[0].vcs_pr_description);
    const active = await api.walk("/v1/releases?status=active", 100);
    expect(active.items.map((r) => r.id)).toEqual(want.releases.filter((r) => r.status === "active").map((r) => r.id));
  });
});

describe("fixtures through the API", () => {
  it("hold two projects with data each", () => {
    expect(dataset.projects.length).toBeGreaterThanOrEqual(2);
    expect(want.interviews.length).toBeGreaterThanOrEqual(300);
  });
});
