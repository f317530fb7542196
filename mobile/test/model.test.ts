// The lifecycle as a model-based test: random sequences of events, accepts, dismisses, identity changes,
// links and clock jumps run against the real reference server, checked step by step against a model.
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { RunningServer } from "../../server/src/testing.ts";
import type { InterviewClient } from "../src/index.ts";
import { CONFIG_TTL_S, fakeClock, freshUser, makeClient, startParticipantServer, TOKEN_TTL_MS, type Harness } from "./setup.ts";

const clock = fakeClock();
let server: RunningServer;
beforeAll(async () => void (server = await startParticipantServer(clock)));
afterAll(() => server.close());

/** What the server answers for each rule, for a user who never completed an interview (fixture facts). */
const RULE_MODE: Record<string, "webview" | "external_browser" | "not_eligible"> = {
  report_exported: "webview", checkout_completed: "external_browser", onboarding_finished: "not_eligible",
};
const LINK_MODE: Record<string, "webview" | "external_browser" | "not_eligible"> = { acWeb1: "webview", acExt1: "external_browser", acFull1: "not_eligible", nosuchcode: "not_eligible" };

interface Model {
  pending: { event: string; expiresAt: number } | null;
  active: boolean;
  /** When the cached config expires (the client refetches it on the next event after that). */
  configExpiresAt: number;
  opened: number;
}
interface Real { h: Harness; client: InterviewClient }

const check = (m: Model, r: Real, where: string) => {
  const s = r.client.getSnapshot();
  if ((s.pendingInvite !== null) !== (m.pending !== null)) throw new Error(`${where}: pendingInvite ${JSON.stringify(s.pendingInvite)} but the model says ${JSON.stringify(m.pending)}`);
  if (m.pending && s.pendingInvite?.triggerEvent !== m.pending.event) throw new Error(`${where}: invite for ${s.pendingInvite?.triggerEvent}, model ${m.pending.event}`);
  if ((s.activeLaunch !== null) !== m.active) throw new Error(`${where}: activeLaunch ${JSON.stringify(s.activeLaunch)} but the model says ${m.active}`);
  if (r.h.opened.length !== m.opened) throw new Error(`${where}: ${r.h.opened.length} fallback URLs opened, model ${m.opened}`);
};

class Track implements fc.AsyncCommand<Model, Real> {
  constructor(readonly event: string) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const stale = clock.now() >= m.configExpiresAt;
    r.client.track(this.event, { source: "model" });
    if (stale) {
      await r.client.ready();
      m.configExpiresAt = clock.now() + CONFIG_TTL_S * 1000;
    }
    if (this.event in RULE_MODE && !m.pending && !m.active) m.pending = { event: this.event, expiresAt: stale ? clock.now() + TOKEN_TTL_MS : m.configExpiresAt - CONFIG_TTL_S * 1000 + TOKEN_TTL_MS };
    check(m, r, `track(${this.event})`);
  }
  toString = () => `track(${this.event})`;
}

class Accept implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    const result = await r.client.startPendingInvite();
    let want: string = "none";
    if (m.pending) {
      want = clock.now() >= m.pending.expiresAt ? "expired" : RULE_MODE[m.pending.event];
      if (want === "webview") m.active = true;
      if (want === "external_browser") m.opened++;
      m.pending = null;
    }
    if (result !== want) throw new Error(`startPendingInvite() = ${result}, model ${want}`);
    check(m, r, "accept");
  }
  toString = () => "accept";
}

class Dismiss implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    r.client.dismissPendingInvite();
    m.pending = null;
    check(m, r, "dismiss");
  }
  toString = () => "dismiss";
}

class CloseLaunch implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => m.active;
  async run(m: Model, r: Real) {
    r.client.closeActiveLaunch();
    m.active = false;
    check(m, r, "close");
  }
  toString = () => "close";
}

class SetUser implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    r.client.setUser(freshUser());
    await r.client.ready();
    Object.assign(m, { pending: null, active: false, configExpiresAt: clock.now() + CONFIG_TTL_S * 1000 });
    check(m, r, "setUser");
  }
  toString = () => "setUser(new)";
}

class Link implements fc.AsyncCommand<Model, Real> {
  constructor(readonly code: string, readonly valid: boolean) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const result = await r.client.handleLink(this.valid ? `https://interviews.example.com/i/${this.code}` : `https://interviews.example.com/help/${this.code}`);
    if (!this.valid) {
      if (result.handled) throw new Error(`an invalid link was handled: ${JSON.stringify(result)}`);
    } else {
      const want = LINK_MODE[this.code];
      if (!result.handled || result.mode !== want) throw new Error(`handleLink(${this.code}) = ${JSON.stringify(result)}, model ${want}`);
      if (want === "webview") Object.assign(m, { active: true, pending: null });
      if (want === "external_browser") m.opened++;
    }
    check(m, r, `link(${this.code})`);
  }
  toString = () => `link(${this.code}${this.valid ? "" : ", invalid"})`;
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    clock.advance(this.ms);
    check(m, r, `advance(${this.ms})`);
  }
  toString = () => `advance(${this.ms} ms)`;
}

// fc.commands picks uniformly among these, so repeats weight the mix toward invites and accepts.
const ruleEvent = fc.constantFrom("report_exported", "checkout_completed", "onboarding_finished").map((e) => new Track(e));
const accept = fc.constant(new Accept());
const commands = [
  ruleEvent, ruleEvent, ruleEvent,
  fc.constantFrom("page_viewed", "settings_opened").map((e) => new Track(e)),
  accept, accept, accept,
  fc.constant(new Dismiss()),
  fc.constant(new CloseLaunch()),
  fc.constant(new SetUser()),
  fc.tuple(fc.constantFrom("acWeb1", "acExt1", "acFull1", "nosuchcode"), fc.boolean()).map(([c, v]) => new Link(c, v)),
  fc.constantFrom(1_000, CONFIG_TTL_S * 1000 + 1, TOKEN_TTL_MS + 1).map((ms) => new Advance(ms)),
];

describe("model-based lifecycle", () => {
  it("matches the model for random command sequences against the reference server", async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 30, size: "max" }), async (cmds) => {
        const h = makeClient(server.baseUrl, clock);
        await h.client.ready();
        const model: Model = { pending: null, active: false, configExpiresAt: clock.now() + CONFIG_TTL_S * 1000, opened: 0 };
        await fc.asyncModelRun(() => ({ model, real: { h, client: h.client } }), cmds);
      }),
      { numRuns: 40, seed: 20260302 },
    );
  }, 60_000);
});
