// The deprecated experiments endpoint: Deprecation, Sunset and Link on every response (errors too),
// and per-study stats that agree with the interviews.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acme, expected } from "./oracle.ts";
import { startApi, type Api } from "./helpers.ts";

let api: Api;
beforeAll(async () => void (api = await startApi()));
afterAll(() => api.server.close());

const want = expected(acme.id);

describe("GET /v1/experiments", () => {
  it("carries the deprecation headers, Sunset being July 1, 2026 as an HTTP date", async () => {
    for (const key of [undefined, null, "svc_live_bogus"]) {
      const res = await api.req("/v1/experiments", { key });
      expect(res.headers.get("sunset")).toBe("Wed, 01 Jul 2026 00:00:00 GMT");
      expect(new Date(res.headers.get("sunset")!).toISOString()).toBe("2026-07-01T00:00:00.000Z");
      expect(res.headers.get("deprecation")).toMatch(/^@\d+$/);
      expect(res.headers.get("link")).toContain('rel="successor-version"');
    }
  });

  it("reports every active study with counts that match its interviews", async () => {
    const res = await api.req("/v1/experiments");
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: any) => e.id)).toEqual(want.studies.map((s) => s.id));
    for (const e of res.body.data) {
      const mine = want.interviews.filter((i) => i.study_id === e.id);
      expect(e.interviews.total).toBe(mine.length);
      expect(e.interviews.completed).toBe(mine.filter((i) => i.status === "completed").length);
      expect(e.quality.insightful).toBe(mine.filter((i) => i.quality_score === "insightful").length);
      const study = await api.req(`/v1/studies/${e.id}`);
      expect(e.limits).toEqual(study.body.limits);
      expect(e.accepting_responses).toBe(study.body.accepting_responses);
    }
    expect(res.body.usage.interviews_total).toBe(want.interviews.length);
  });
});
