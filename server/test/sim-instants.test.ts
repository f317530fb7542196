// Interviews planted at chosen instants (POST /_sim/interviews with created_at): usage windows probed at their edges,
// the last millisecond of last week and the first of this one, on a fresh project so nothing else counts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANCHOR_MS, startApi, type Api } from "./helpers.ts";

let api: Api;
let key = "";
beforeAll(async () => {
  api = await startApi();
  key = (await api.req("/_sim/projects", { method: "POST", body: { name: "Windows" } })).body.api_key;
});
afterAll(() => api.server.close());

const DAY = 86_400_000;
/** Monday 00:00 UTC of the week holding `ms` (the seed: weeks run Monday to Sunday, UTC). */
const monday = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY;
};
const iso = (ms: number) => new Date(ms).toISOString();

describe("interviews at chosen instants", () => {
  it("count in the week they were created in: the last millisecond of last week does not count, the first of this week does", async () => {
    const study = (await api.req("/_sim/studies", { method: "POST", key, body: { name: "Weekly cap 2", weekly_limit: 2, monthly_limit: null } })).body;
    const start = monday(ANCHOR_MS);
    for (const at of [start - 1, start - 1, start - 1]) {
      const r = await api.req("/_sim/interviews", { method: "POST", key, body: { study_id: study.id, created_at: iso(at) } });
      expect(r.status, r.text).toBe(201);
      expect(r.body).toMatchObject({ created_at: iso(at), started_at: iso(at), status: "completed", completed_at: iso(at) });
    }
    let now = (await api.req(`/v1/studies/${study.id}`, { key })).body;
    expect([now.limits.weekly.used, now.accepting_responses]).toEqual([0, true]);
    await api.req("/_sim/interviews", { method: "POST", key, body: { study_id: study.id, created_at: iso(start) } });
    now = (await api.req(`/v1/studies/${study.id}`, { key })).body;
    expect([now.limits.weekly.used, now.accepting_responses]).toEqual([1, true]);
    await api.req("/_sim/interviews", { method: "POST", key, body: { study_id: study.id, created_at: iso(start), completed_at: iso(start + 90_000) } });
    now = (await api.req(`/v1/studies/${study.id}`, { key })).body;
    expect([now.limits.weekly.used, now.accepting_responses, now.interview_count]).toEqual([2, false, 5]);
  });

  it("can be held started at an instant, and lists keep their order with planted items", async () => {
    const study = (await api.req("/_sim/studies", { method: "POST", key, body: { name: "Held" } })).body;
    const held = await api.req("/_sim/interviews", { method: "POST", key, body: { study_id: study.id, created_at: iso(ANCHOR_MS - 5 * DAY), hold: true } });
    expect(held.body.status).toBe("started");
    const list = (await api.req(`/v1/interviews?study_id=${study.id}`, { key })).body.data;
    expect(list.map((i: any) => i.id)).toContain(held.body.id);
  });

  it("refuses an instant in the future, a completion before the start or after now, and completed_at alone", async () => {
    const study = (await api.req("/_sim/studies", { method: "POST", key, body: {} })).body;
    const cases = [
      { created_at: iso(ANCHOR_MS + 60_000) },
      { created_at: iso(ANCHOR_MS - DAY), completed_at: iso(ANCHOR_MS - 2 * DAY) },
      { created_at: iso(ANCHOR_MS - DAY), completed_at: iso(ANCHOR_MS + DAY) },
      { completed_at: iso(ANCHOR_MS - DAY) },
    ];
    for (const extra of cases) {
      const r = await api.req("/_sim/interviews", { method: "POST", key, body: { study_id: study.id, ...extra } });
      expect([JSON.stringify(extra), r.status, r.body.error.message]).toEqual([JSON.stringify(extra), 400, "Invalid parameters"]);
    }
  });
});
