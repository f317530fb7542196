// POST /api/_sim/interviews: the interview moves started -> processing -> completed on the server's clock, counts
// against the study's limits, and is refused (409) once the study stops accepting responses; another project's
// study is a 404 exactly like one that never existed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDataset } from "../src/model/dataset.ts";
import { ACME, ANCHOR_MS, GLOBEX, NEVER, startApi, type Api } from "./helpers.ts";
import { assertValid, deliveries, manualClock } from "./webhooks-helpers.ts";

const SIM_MS = 1_000;
const DAY = 86_400_000;

/** Monday 00:00 UTC of the week holding `ms` (DESIGN.md: the weekly window starts Monday 00:00 UTC). */
function weekStart(ms: number): number {
  const d = new Date(ms);
  const sinceMonday = (d.getUTCDay() + 6) % 7;
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - sinceMonday * DAY;
}

// Three Acme studies pinned for the test: an unlimited one, one with room for exactly one more interview this
// week, and a paused one. Globex's first study stands for "another project's study".
const dataset = readDataset();
const acmeId = dataset.projects.find((p) => p.api_key === ACME)!.id;
const globexId = dataset.projects.find((p) => p.api_key === GLOBEX)!.id;
const acmeStudies = dataset.studies.filter((s) => s.project_id === acmeId);
const [unlimited, nearlyFull, paused] = acmeStudies;
const globexStudy = dataset.studies.find((s) => s.project_id === globexId)!;
const thisWeek = new Date(weekStart(ANCHOR_MS)).toISOString();
const usedThisWeek = dataset.interviews.filter((i) => i.study_id === nearlyFull.id && i.created_at >= thisWeek).length;
Object.assign(unlimited, { status: "active", weekly_limit: null, monthly_limit: null });
Object.assign(nearlyFull, { status: "active", weekly_limit: usedThisWeek + 1, monthly_limit: null });
Object.assign(paused, { status: "paused" });

let api: Api;
const clock = manualClock(ANCHOR_MS);

beforeAll(async () => {
  api = await startApi({ dataset, clock, simProcessingMs: SIM_MS });
});
afterAll(() => api.server.close());

const sim = (studyId: string, key = ACME, extra: Record<string, unknown> = {}) =>
  api.req("/_sim/interviews", { method: "POST", key, body: { study_id: studyId, ...extra } });
const statusOf = async (id: string) => (await api.req(`/v1/interviews/${id}`)).body.status;

describe("POST /api/_sim/interviews", () => {
  it("creates a started interview that moves to processing, then completed, on the clock", async () => {
    const created = await sim(unlimited.id, ACME, { reference_id: "user_7", respondent_email: null, language: "en" });
    expect(created.status).toBe(201);
    assertValid("#/components/schemas/Interview", created.body);
    expect(created.body).toMatchObject({ study_id: unlimited.id, status: "started", reference_id: "user_7", completed_at: null, quality_score: null });
    expect(created.body.started_at).toBe(new Date(clock.now()).toISOString());
    const id = created.body.id;
    expect(await statusOf(id)).toBe("started");
    // The list filter follows the status as it changes.
    const listed = async (status: string) => (await api.req(`/v1/interviews?study_id=${unlimited.id}&status=${status}&limit=100`)).body.data.some((i: any) => i.id === id);
    expect(await listed("started")).toBe(true);

    clock.advance(SIM_MS / 2 - 1);
    expect(await statusOf(id)).toBe("started");
    clock.advance(1);
    expect(await statusOf(id)).toBe("processing");
    expect(await listed("started")).toBe(false);
    expect(await listed("processing")).toBe(true);

    clock.advance(SIM_MS / 2);
    const done = (await api.req(`/v1/interviews/${id}`)).body;
    expect(done).toMatchObject({ status: "completed", completed_at: new Date(clock.now()).toISOString() });
    expect(done.quality_score).not.toBeNull();
    expect(done.transcript.length).toBeGreaterThan(0);
    expect(await listed("completed")).toBe(true);
    // No webhook is registered in this file: completion records no delivery.
    expect(await deliveries(api, id)).toEqual([]);
  });

  it("counts against the study's weekly and monthly usage at once", async () => {
    const before = (await api.req(`/v1/studies/${unlimited.id}`)).body;
    await sim(unlimited.id);
    const after = (await api.req(`/v1/studies/${unlimited.id}`)).body;
    expect(after.limits.weekly.used).toBe(before.limits.weekly.used + 1);
    expect(after.limits.monthly.used).toBe(before.limits.monthly.used + 1);
    clock.advance(SIM_MS);
  });

  it("answers 409 in the error envelope once the study's weekly limit is used up", async () => {
    const before = (await api.req(`/v1/studies/${nearlyFull.id}`)).body;
    expect(before.limits.weekly).toEqual({ limit: usedThisWeek + 1, used: usedThisWeek });
    expect(before.accepting_responses).toBe(true);
    expect((await sim(nearlyFull.id)).status).toBe(201);

    const full = (await api.req(`/v1/studies/${nearlyFull.id}`)).body;
    expect(full.limits.weekly.used).toBe(usedThisWeek + 1);
    expect(full.accepting_responses).toBe(false);
    const refused = await sim(nearlyFull.id);
    expect(refused.status).toBe(409);
    assertValid("#/components/schemas/ErrorEnvelope", refused.body);
    expect(refused.body.error).toEqual({ type: "conflict_error", message: `Study ${nearlyFull.id} is not accepting responses` });
    // A refused request used nothing.
    expect((await api.req(`/v1/studies/${nearlyFull.id}`)).body.limits.weekly.used).toBe(usedThisWeek + 1);
    clock.advance(SIM_MS);
  });

  it("answers 409 for a study that is not active", async () => {
    const refused = await sim(paused.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.type).toBe("conflict_error");
  });

  it("answers 404 for another project's study, exactly as for an unknown id", async () => {
    const other = await sim(globexStudy.id);
    const unknown = await sim(NEVER);
    expect(other.status).toBe(404);
    expect(unknown.status).toBe(404);
    assertValid("#/components/schemas/ErrorEnvelope", other.body);
    expect(other.body.error).toEqual({ type: "not_found_error", message: `No such study: ${globexStudy.id}` });
    expect(unknown.body.error.message.replace(NEVER, globexStudy.id)).toBe(other.body.error.message);
    // Globex's own key reaches it.
    expect((await sim(globexStudy.id, GLOBEX)).status).not.toBe(404);
    clock.advance(SIM_MS);
  });

  it("rejects a body without study_id with 400", async () => {
    const res = await api.req("/_sim/interviews", { method: "POST", body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: any) => d.field)).toContain("study_id");
  });
});
