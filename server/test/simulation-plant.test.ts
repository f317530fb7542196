// The planting side of the simulation surface: studies with chosen caps, chats with payloads of exact sizes
// (hidden ones included), held interviews completed on demand, and status that only moves forward.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACME, ANCHOR_MS, GLOBEX, NEVER, startApi, type Api } from "./helpers.ts";
import { assertValid, deliveries, manualClock } from "./webhooks-helpers.ts";

let api: Api;
const clock = manualClock(ANCHOR_MS);
const SIM_MS = 1_000;

beforeAll(async () => void (api = await startApi({ clock, simProcessingMs: SIM_MS })));
afterAll(() => api.server.close());

const plantStudy = (body: Record<string, unknown>, key = ACME) => api.req("/_sim/studies", { method: "POST", key, body });
const plantChat = (body: Record<string, unknown>, key = ACME) => api.req("/_sim/chats", { method: "POST", key, body });
const hold = (studyId: string) => api.req("/_sim/interviews", { method: "POST", body: { study_id: studyId, hold: true } });
const study = async (id: string) => (await api.req(`/v1/studies/${id}`)).body;
const ascii = (bytes: number) => "a".repeat(bytes - 2); // a JSON string of exactly `bytes` bytes

describe("POST /api/_sim/studies", () => {
  it("plants a study with its caps, listed first and counted from its first interview", async () => {
    const made = await plantStudy({ name: "Caps", monthly_limit: 3, weekly_limit: 2 });
    expect(made.status).toBe(201);
    assertValid("#/components/schemas/Study", made.body);
    expect(made.body).toMatchObject({ name: "Caps", status: "active", accepting_responses: true, interview_count: 0, limits: { monthly: { limit: 3, used: 0 }, weekly: { limit: 2, used: 0 } } });
    expect((await api.req("/v1/studies?limit=1")).body.data[0].id).toBe(made.body.id);
    expect((await api.req(`/v1/studies/${made.body.id}`, { key: GLOBEX })).status).toBe(404);
  });

  it("flips accepting_responses at the cap and refuses the next simulated interview with 409", async () => {
    const { body: s } = await plantStudy({ weekly_limit: 2 });
    expect((await hold(s.id)).status).toBe(201);
    expect((await study(s.id)).accepting_responses).toBe(true);
    expect((await hold(s.id)).status).toBe(201);
    expect(await study(s.id)).toMatchObject({ accepting_responses: false, limits: { weekly: { limit: 2, used: 2 } } });
    expect((await hold(s.id)).status).toBe(409);
  });

  it("plants paused and draft studies, which are not listed and not accepting", async () => {
    for (const status of ["paused", "draft"]) {
      const { body: s } = await plantStudy({ status });
      expect(s.accepting_responses).toBe(false);
      expect((await api.walk("/v1/studies", 100)).items.some((x) => x.id === s.id)).toBe(false);
    }
  });

  it("refuses bad caps and unknown fields with 400 naming the field", async () => {
    const bad = await plantStudy({ weekly_limit: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: any) => d.field)).toContain("weekly_limit");
    expect((await plantStudy({ status: "archived" })).status).toBe(400);
  });
});

describe("PUT /api/_sim/studies/:id/status", () => {
  const setStatus = (id: string, status: unknown, key = ACME) => api.req(`/_sim/studies/${id}/status`, { method: "PUT", key, body: { status } });

  it("pauses a study: not accepting, out of the list, its next simulated interview refused; active again puts it back", async () => {
    const { body: s } = await plantStudy({ name: "Paused later" });
    const paused = await setStatus(s.id, "paused");
    expect(paused.status).toBe(200);
    assertValid("#/components/schemas/Study", paused.body);
    expect(paused.body).toMatchObject({ id: s.id, status: "paused", accepting_responses: false });
    expect(await study(s.id)).toMatchObject({ status: "paused", accepting_responses: false });
    expect((await api.walk("/v1/studies", 100)).items.some((x) => x.id === s.id)).toBe(false);
    expect((await hold(s.id)).status).toBe(409);
    expect((await setStatus(s.id, "active")).body).toMatchObject({ status: "active", accepting_responses: true });
    expect((await api.walk("/v1/studies", 100)).items.filter((x) => x.id === s.id)).toHaveLength(1);
    expect((await hold(s.id)).status).toBe(201);
  });

  it("answers 404 for another project's study or an unknown one, and 400 for a status the seed does not have", async () => {
    const { body: s } = await plantStudy({});
    expect((await setStatus(s.id, "paused", GLOBEX)).status).toBe(404);
    expect((await setStatus("00000000-0000-4000-8000-000000000000", "paused")).status).toBe(404);
    const bad = await setStatus(s.id, "archived");
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: any) => d.field)).toContain("status");
    expect((await study(s.id)).status).toBe("active");
  });
});

describe("held interviews and POST /api/_sim/interviews/:id/complete", () => {
  it("keeps a held interview started, completes it on demand, counts it in interview_count only then, and emits the webhook", async () => {
    const { body: s } = await plantStudy({});
    await api.req("/v1/webhooks", { method: "PUT", body: { url: "http://127.0.0.1:9/hook", events: ["interview.completed"] } });
    const held = (await hold(s.id)).body;
    clock.advance(SIM_MS * 5);
    expect((await api.req(`/v1/interviews/${held.id}`)).body.status).toBe("started");
    expect(await study(s.id)).toMatchObject({ interview_count: 0, limits: { monthly: { used: 1 } } });
    const done = await api.req(`/_sim/interviews/${held.id}/complete`, { method: "POST" });
    expect(done.status).toBe(200);
    assertValid("#/components/schemas/Interview", done.body);
    expect(done.body).toMatchObject({ id: held.id, status: "completed" });
    expect((await study(s.id)).interview_count).toBe(1);
    expect((await deliveries(api, held.id)).length).toBeGreaterThan(0);
    const again = await api.req(`/_sim/interviews/${held.id}/complete`, { method: "POST" });
    expect(again.status).toBe(409);
    expect((await api.req(`/_sim/interviews/${NEVER}/complete`, { method: "POST" })).status).toBe(404);
    expect((await api.req(`/_sim/interviews/${held.id}/complete`, { method: "POST", key: GLOBEX })).status).toBe(404);
    await api.req("/v1/webhooks", { method: "DELETE" });
  });

  it("translates the transcript of a German interview, and of no English one, regional English included", async () => {
    const { body: s } = await plantStudy({ supported_languages: ["de", "en", "en-GB", "en-us"] });
    for (const [language, translated] of [["de", true], ["en", false], ["en-GB", false], ["en-us", false]] as const) {
      const held = (await api.req("/_sim/interviews", { method: "POST", body: { study_id: s.id, hold: true, language } })).body;
      const done = await api.req(`/_sim/interviews/${held.id}/complete`, { method: "POST" });
      expect(done.body.transcript.length, language).toBeGreaterThan(0);
      expect(done.body.transcript.map((t: any) => "translated" in t), language).toEqual(done.body.transcript.map(() => translated));
    }
  });

  it("never moves an interview backwards: completing one early makes its timers do nothing", async () => {
    const { body: s } = await plantStudy({});
    const timed = (await api.req("/_sim/interviews", { method: "POST", body: { study_id: s.id } })).body;
    expect((await api.req(`/_sim/interviews/${timed.id}/complete`, { method: "POST" })).status).toBe(200);
    clock.advance(SIM_MS * 2);
    const after = (await api.req(`/v1/interviews/${timed.id}`)).body;
    expect(after.status).toBe("completed");
    expect(after.completed_at).not.toBeNull();
  });
});

describe("POST /api/_sim/chats", () => {
  it("plants a visible chat whose payloads are truncated exactly above 32768 bytes", async () => {
    // Three payloads near 32 KB fit the 100 KB request limit; the sources go in a second chat.
    const sizes = [32_767, 32_768, 32_769];
    const messages = sizes.map((n) => ({ role: "assistant", parts: [{ type: "tool_result", tool_use_id: "t", content: ascii(n), is_error: false }] }));
    const made = await plantChat({ title: "Sizes", messages });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ object: "sim_chat", visibility: "visible" });
    expect(made.body.message_ids).toHaveLength(3);
    const detail = await api.req(`/v1/chats/${made.body.id}`);
    expect(detail.body).toMatchObject({ title: "Sizes", message_count: 3 });
    const listed = (await api.req(`/v1/chats/${made.body.id}/messages`)).body.data;
    expect(listed.map((m: any) => m.id)).toEqual(made.body.message_ids);
    const [under, at, over] = listed;
    for (const m of [under, at]) expect(m.parts[0]).toEqual({ type: "tool_result", tool_use_id: "t", content: m === under ? ascii(32_767) : ascii(32_768), is_error: false });
    expect(over.parts[0]).toEqual({ type: "tool_result", tool_use_id: "t", content: null, truncated: true, truncation_reason: "size_limit_32kb", is_error: false });
    const cited = await plantChat({ messages: [32_768, 32_769].map((n) => ({ role: "assistant", parts: [{ type: "text", text: "t" }], sources: [{ id: "s", description: "d", rows: 3, query: ascii(n) }] })) });
    const [kept, nulled] = (await api.req(`/v1/chats/${cited.body.id}/messages`)).body.data;
    expect(kept.sources[0]).toEqual({ id: "s", description: "d", rows: 3, query: ascii(32_768) });
    expect(nulled.sources[0]).toEqual({ id: "s", description: "d", rows: 3, query: null, truncated: true, truncation_reason: "size_limit_32kb" });
  });

  it("stores internal, evaluation and release chats, and visible ones from an internal source, as hidden: 404 everywhere and never listed", async () => {
    for (const kind of [{ visibility: "internal" }, { visibility: "evaluation" }, { visibility: "release" }, { source: "eval" }, { source: "releases" }]) {
      const made = await plantChat({ ...kind, messages: [{ role: "user", parts: [{ type: "text", text: "x" }] }] });
      expect(made.status).toBe(201);
      expect((await api.req(`/v1/chats/${made.body.id}`)).status).toBe(404);
      expect((await api.req(`/v1/chats/${made.body.id}/messages`)).status).toBe(404);
      expect((await api.walk("/v1/chats", 100)).items.some((c) => c.id === made.body.id)).toBe(false);
    }
  });

  it("refuses an unknown part type with 400", async () => {
    const bad = await plantChat({ messages: [{ role: "user", parts: [{ type: "hologram", summary: "x" }] }] });
    expect(bad.status).toBe(400);
  });
});

describe("POST /api/_sim/releases", () => {
  const plantRelease = (body: Record<string, unknown>, key = ACME) => api.req("/_sim/releases", { method: "POST", key, body });
  const iso = (daysAgo: number, ms = 0) => new Date(clock.now() - daysAgo * 86_400_000 + ms).toISOString();

  it("plants a release that reads back as given, listed by merged_at (not creation) and filtered by status, in its project only", async () => {
    const never = await plantRelease({ vcs_pr_number: 7, vcs_pr_title: "  Ñandú e\u0301 😀\t", vcs_pr_description: "", vcs_pr_author: "", status: "dismissed", merged_at: iso(3, 250), last_analysis_at: null });
    expect(never.status).toBe(201);
    assertValid("#/components/schemas/Release", never.body);
    expect(never.body).toMatchObject({ object: "release", status: "dismissed", vcs_pr_number: 7, vcs_pr_title: "  Ñandú e\u0301 😀\t", vcs_pr_description: "", vcs_pr_author: "", merged_at: iso(3, 250), last_analysis_at: null, created_at: new Date(clock.now()).toISOString() });
    const analysed = await plantRelease({ vcs_pr_number: 8, vcs_pr_title: "Older", merged_at: iso(5), last_analysis_at: iso(4) });
    expect(analysed.body).toMatchObject({ status: "active", vcs_pr_description: "", vcs_pr_author: "octocat", vcs_pr_url: "https://github.com/example/app/pull/8", last_analysis_at: iso(4) });
    expect((await api.req(`/v1/releases/${never.body.id}`)).body).toEqual(never.body);
    // Planted after it, merged before it: listed after it; the list shows each without its description.
    const listed = (await api.walk("/v1/releases", 100)).items;
    const order = listed.map((r) => r.id).filter((id) => id === never.body.id || id === analysed.body.id);
    expect(order).toEqual([never.body.id, analysed.body.id]);
    const { vcs_pr_description: _d, ...summary } = never.body;
    expect(listed.find((r) => r.id === never.body.id)).toEqual(summary);
    expect(listed.map((r) => r.merged_at)).toEqual([...listed.map((r) => r.merged_at)].sort().reverse());
    expect((await api.walk("/v1/releases?status=dismissed", 100)).items.map((r) => r.id)).toContain(never.body.id);
    expect((await api.walk("/v1/releases?status=active", 100)).items.map((r) => r.id)).not.toContain(never.body.id);
    expect((await api.req(`/v1/releases/${never.body.id}`, { key: GLOBEX })).status).toBe(404);
    expect((await api.walk("/v1/releases", 100, GLOBEX)).items.map((r) => r.id)).not.toContain(never.body.id);
    // Its chat is release-generated: the API never shows it.
    expect((await api.req(`/v1/chats/${never.body.chat_id}`)).status).toBe(404);
  });

  it("refuses instants in the future, an analysis before the merge, and bad fields, with 400 naming each", async () => {
    const future = await plantRelease({ vcs_pr_number: 1, vcs_pr_title: "x", merged_at: iso(-1) });
    expect(future.status).toBe(400);
    expect(future.body.error.details.map((d: any) => d.field)).toEqual(["merged_at"]);
    const early = await plantRelease({ vcs_pr_number: 1, vcs_pr_title: "x", merged_at: iso(2), last_analysis_at: iso(3) });
    expect(early.body.error.details.map((d: any) => d.field)).toEqual(["last_analysis_at"]);
    const bad = await plantRelease({ vcs_pr_number: 0, vcs_pr_title: 3, status: "Active", extra: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: any) => d.field)).toEqual(expect.arrayContaining(["vcs_pr_number", "vcs_pr_title", "status"]));
    expect((await api.walk("/v1/releases", 100)).items.some((r) => r.vcs_pr_title === 3)).toBe(false);
  });
});
