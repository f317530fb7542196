// Participant endpoints of the mobile client library, with the public SDK key.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACME_PK, GLOBEX_PK, fixedClock, startApi, type Api } from "./helpers.ts";
import { acme, dataset } from "./oracle.ts";

const clock = fixedClock();
let api: Api;
beforeAll(async () => void (api = await startApi({ clock, launchTokenTtlMs: 60_000 })));
afterAll(() => api.server.close());

const pk = (key = ACME_PK) => ({ key: null, headers: { "x-public-key": key } });
const launch = (body: unknown, key = ACME_PK) => api.req("/v1/interview-participant/launches", { ...pk(key), method: "POST", body });
const audience = dataset.audiences.find((a) => a.project_id === acme.id)!;

describe("participant config", () => {
  it("returns every trigger rule with a signed launch and a TTL", async () => {
    const res = await api.req("/v1/interview-participant/config?referenceId=someone", pk());
    expect(res.status).toBe(200);
    expect(res.body.ttlSeconds).toBe(300);
    const rules = dataset.trigger_rules.filter((r) => r.project_id === acme.id);
    expect(res.body.triggerRules.map((r: any) => r.launchRuleId).sort()).toEqual(rules.map((r) => r.id).sort());
    expect(res.body.audienceMatches).toEqual([]);
    expect(res.body.triggerRules[0].launchTokenExpiresAt).toBe(new Date(clock.now() + 60_000).toISOString());
  });

  it("lists the audiences the referenceId belongs to", async () => {
    const res = await api.req(`/v1/interview-participant/config?referenceId=${audience.reference_ids[0]}`, pk());
    expect(res.body.audienceMatches.map((m: any) => m.audienceId)).toContain(audience.id);
  });
});

describe("launches", () => {
  async function tokenFor(ruleId: string, referenceId: string | null) {
    const res = await api.req(`/v1/interview-participant/config${referenceId ? `?referenceId=${referenceId}` : ""}`, pk());
    return res.body.triggerRules.find((r: any) => r.launchRuleId === ruleId).launchToken as string;
  }

  it("resolves each rule to its mode, or not_eligible when its study is not accepting", async () => {
    const modes = new Set<string>();
    for (const rule of dataset.trigger_rules.filter((r) => r.project_id === acme.id)) {
      const res = await launch({ referenceId: "fresh_user", launchToken: await tokenFor(rule.id, "fresh_user"), triggerEvent: rule.event_name, metadata: { plan: "pro", seats: 3, beta: true, note: null } });
      expect(res.status).toBe(200);
      modes.add(res.body.mode);
      expect(res.body).toMatchObject({ object: "launch", launchRuleId: rule.id, experimentId: rule.study_id });
      if (res.body.mode === "not_eligible") {
        expect(res.body).toMatchObject({ url: null, expiresAt: null, reason: "not_accepting_responses" });
      } else {
        expect(res.body.mode).toBe(rule.mode);
        expect(new URL(res.body.url).searchParams.get("reference_id")).toBe("fresh_user");
      }
    }
    expect(modes).toEqual(new Set(["webview", "external_browser", "not_eligible"]));
  });

  it("an expired launch token is a 410; a forged one, another user's or another project's is a 400", async () => {
    const rule = dataset.trigger_rules.find((r) => r.project_id === acme.id)!;
    const token = await tokenFor(rule.id, "u1");
    expect((await launch({ referenceId: "u2", launchToken: token })).status).toBe(400);
    // One signature character changed, never the last (its low bits are base64 padding, so A and B can decode alike).
    const forged = token.slice(0, -5) + (token.at(-5) === "A" ? "B" : "A") + token.slice(-4);
    expect((await launch({ referenceId: "u1", launchToken: forged })).status).toBe(400);
    expect((await launch({ referenceId: "u1", launchToken: token }, GLOBEX_PK)).status).toBe(400);
    clock.advance(60_001);
    const expired = await launch({ referenceId: "u1", launchToken: token });
    expect(expired.status).toBe(410);
    expect(expired.body.error.type).toBe("launch_expired_error");
  });

  it("resolves invite codes, unknown ones as not_eligible", async () => {
    for (const invite of dataset.invites.filter((i) => i.project_id === acme.id)) {
      const res = await launch({ referenceId: null, inviteCode: invite.code });
      expect(res.status).toBe(200);
      expect(["not_eligible", invite.mode]).toContain(res.body.mode);
      expect(res.body.experimentId).toBe(invite.study_id);
    }
    const unknown = await launch({ referenceId: null, inviteCode: "nosuchcode" });
    expect(unknown.body).toMatchObject({ mode: "not_eligible", reason: "unknown_invite" });
  });

  it("needs exactly one of launchToken and inviteCode", async () => {
    expect((await launch({ referenceId: null })).status).toBe(400);
    expect((await launch({ referenceId: null, inviteCode: "abcd", launchToken: "lt_x.y" })).status).toBe(400);
  });
});

describe("prompt events", () => {
  it("records a phase once per eventId", async () => {
    const body = { eventId: randomUUID(), phase: "shown", referenceId: "u1", occurredAt: new Date(clock.now()).toISOString() };
    const first = await api.req("/v1/interview-participant/prompt-events", { ...pk(), method: "POST", body });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ object: "prompt_event", id: body.eventId, duplicate: false });
    const second = await api.req("/v1/interview-participant/prompt-events", { ...pk(), method: "POST", body });
    expect(second.body.duplicate).toBe(true);
    const bad = await api.req("/v1/interview-participant/prompt-events", { ...pk(), method: "POST", body: { ...body, phase: "clicked" } });
    expect(bad.status).toBe(400);
  });
});

describe("a study planted with a trigger event", () => {
  const plant = async (body: Record<string, unknown>) => (await api.req("/_sim/studies", { method: "POST", body })).body;
  const rulesNow = async (referenceId: string) => (await api.req(`/v1/interview-participant/config?referenceId=${referenceId}`, pk())).body.triggerRules as any[];

  it("is offered by the trigger config while active, launches in its mode below its cap and is declined at it", async () => {
    const study = await plant({ name: "Planted trigger", weekly_limit: 1, trigger_event: "checkout_done", launch_mode: "external_browser" });
    const paused = await plant({ name: "Paused trigger", status: "paused", trigger_event: "never_offered" });
    const rules = await rulesNow("planted_user");
    const rule = rules.find((r) => r.experimentId === study.id);
    expect(rule).toMatchObject({ eventName: "checkout_done", experimentId: study.id, prompt: { acceptLabel: "Start" } });
    expect(rules.some((r) => r.experimentId === paused.id)).toBe(false);
    const body = { referenceId: "planted_user", launchToken: rule.launchToken };
    const below = await launch(body);
    expect(below.body).toMatchObject({ mode: "external_browser", launchRuleId: rule.launchRuleId, experimentId: study.id });
    expect((await api.req("/_sim/interviews", { method: "POST", body: { study_id: study.id, hold: true } })).status).toBe(201);
    expect((await api.req(`/v1/studies/${study.id}`)).body.accepting_responses).toBe(false);
    expect((await launch(body)).body).toMatchObject({ mode: "not_eligible", reason: "not_accepting_responses", url: null });
  });

  it("launches its own study, for the user its token was issued to only", async () => {
    const a = await plant({ name: "Trigger A", trigger_event: "a_done" });
    const b = await plant({ name: "Trigger B", trigger_event: "b_done" });
    const rules = await rulesNow("u_ab");
    const ruleA = rules.find((r) => r.experimentId === a.id);
    expect(rules.find((r) => r.experimentId === b.id)).toBeDefined();
    expect((await launch({ referenceId: "u_other", launchToken: ruleA.launchToken })).status).toBe(400);
    expect((await launch({ referenceId: "u_ab", launchToken: ruleA.launchToken })).body).toMatchObject({ mode: "webview", experimentId: a.id });
  });

  it("without a trigger event, a planted study adds no rule", async () => {
    const before = (await rulesNow("u_none")).length;
    await plant({ name: "No trigger" });
    expect((await rulesNow("u_none")).length).toBe(before);
  });
});
