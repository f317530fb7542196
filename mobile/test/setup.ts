/**
 * Test plumbing: the real reference server on a shared fake clock, a client harness whose fetch records every
 * request (and can play "service down"), and the fixture facts discovered from the server's own answers.
 */
import { startServer, type RunningServer } from "../../server/src/testing.ts";
// The packaged build, as an app gets it (`npm test` builds dist/ first).
import { createInterviewClient, type InterviewClient } from "../dist/core/index.js";
import type { Diagnostic, InterviewClientOptions, LaunchMode } from "../src/core/types.ts";
import { sleep } from "../../test/support/wait.ts";

export const PK = "pk_live_acme_0123456789abcdef0123456789abcdef";
/** Shorter than the defaults (15 min, 300 s) so clock jumps stay small; the token still outlives the config. */
export const TOKEN_TTL_MS = 60_000;
export const CONFIG_TTL_S = 30;
/** Invite codes of the default fixtures (fixtures/README.md); what each resolves to is discovered, not assumed. */
export const INVITE_CODES = ["acWeb1", "acExt1", "acFull1", "noSuchInvite1"] as const;
export const UNRELATED_EVENTS = ["page_viewed", "settings_opened", "button_clicked"] as const;

export type FakeClock = { now(): number; advance(ms: number): void };

export function fakeClock(start = Date.parse("2026-03-02T12:00:00.000Z")): FakeClock {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

export function startParticipantServer(clock: { now(): number }): Promise<RunningServer> {
  return startServer({ clock, launchTokenTtlMs: TOKEN_TTL_MS, participantConfigTtlSeconds: CONFIG_TTL_S });
}

let users = 0;
/** A referenceId that has never completed an interview, so the server's answer depends only on the rule. */
export const freshUser = () => `mobile_test_user_${process.pid}_${++users}`;

export interface Request {
  method: string;
  path: string;
  url: string;
  body: unknown;
}

export interface Harness {
  client: InterviewClient;
  requests: Request[];
  /** Paths of the requests made, e.g. `GET /api/v1/interview-participant/config`. */
  calls: string[];
  count(endpoint: "config" | "launches" | "prompt-events"): number;
  opened: string[];
  diagnostics: Diagnostic[];
  /** While true, every request fails like an unreachable host (no HTTP answer). */
  down: boolean;
}

export function makeClient(baseUrl: string, clock: { now(): number }, extra: Partial<InterviewClientOptions> = {}): Harness {
  const h: Harness = {
    client: undefined as unknown as InterviewClient,
    requests: [],
    calls: [],
    count: (endpoint) => h.requests.filter((r) => r.path.endsWith(`/${endpoint}`)).length,
    opened: [],
    diagnostics: [],
    down: false,
  };
  const recording: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const method = init?.method ?? "GET";
    h.requests.push({ method, path: url.pathname, url: url.toString(), body: init?.body ? JSON.parse(String(init.body)) : undefined });
    h.calls.push(`${method} ${url.pathname}`);
    if (h.down) throw new TypeError("fetch failed (service down in this test)");
    return fetch(input, init);
  };
  h.client = createInterviewClient({
    publicKey: PK, baseUrl, clock, referenceId: freshUser(), fetch: recording, linkHosts: ["interviews.example.com", "go.example.org"],
    openFallbackUrl: (url) => void h.opened.push(url), onDiagnostic: (d) => void h.diagnostics.push(d), ...extra,
  });
  return h;
}

/** Lets fire-and-forget work (prompt events) reach the server. */
export const settle = () => sleep(30);

export interface FixtureFacts {
  /** Event name -> what accepting its invite resolves to, for a fresh user. */
  ruleModes: Map<string, LaunchMode>;
  /** One rule event per mode. */
  eventFor: Record<LaunchMode, string>;
  /** Invite code -> what the link resolves to, for a fresh user (an unknown code: not_eligible). */
  linkModes: Map<string, LaunchMode>;
  linkFor: Record<LaunchMode, string>;
  /** A referenceId in a synced audience, and what it gets for its audience invite, its rules and its links. */
  audienceUser: { referenceId: string; audienceId: string; audienceMode: LaunchMode; ruleModes: Map<string, LaunchMode>; linkModes: Map<string, LaunchMode> };
}

async function participant(baseUrl: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${baseUrl}/v1/interview-participant${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "X-Public-Key": PK, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`discovery: ${path} answered ${res.status} ${await res.text()}`);
  return res.json();
}

async function modesFor(baseUrl: string, referenceId: string) {
  const config = await participant(baseUrl, `/config?referenceId=${encodeURIComponent(referenceId)}`);
  const ruleModes = new Map<string, LaunchMode>();
  for (const rule of config.triggerRules) {
    ruleModes.set(rule.eventName, (await participant(baseUrl, "/launches", { referenceId, launchToken: rule.launchToken })).mode);
  }
  const linkModes = new Map<string, LaunchMode>();
  for (const code of INVITE_CODES) linkModes.set(code, (await participant(baseUrl, "/launches", { referenceId, inviteCode: code })).mode);
  return { config, ruleModes, linkModes };
}

function oneOfEach(modes: Map<string, LaunchMode>, what: string): Record<LaunchMode, string> {
  const pick = (mode: LaunchMode) => {
    const found = [...modes].find(([, m]) => m === mode)?.[0];
    if (!found) throw new Error(`discovery: no ${what} resolves to ${mode} (${JSON.stringify([...modes])}); the mobile tests need one of each`);
    return found;
  };
  return { webview: pick("webview"), external_browser: pick("external_browser"), not_eligible: pick("not_eligible") };
}

/**
 * Asks the server what its fixtures do, so the tests hold for any data set with one rule and one link per mode
 * and an audience among `user_1`..`user_20`. Launches change nothing on the server, so probing is free.
 */
export async function discoverFixtures(baseUrl: string): Promise<FixtureFacts> {
  const fresh = await modesFor(baseUrl, `mobile_discovery_${process.pid}`);
  for (let i = 1; i <= 20; i++) {
    const referenceId = `user_${i}`;
    const probe = await modesFor(baseUrl, referenceId);
    const match = probe.config.audienceMatches[0];
    if (!match) continue;
    const audienceMode = (await participant(baseUrl, "/launches", { referenceId, launchToken: match.launchToken })).mode;
    return {
      ruleModes: fresh.ruleModes, eventFor: oneOfEach(fresh.ruleModes, "trigger rule"),
      linkModes: fresh.linkModes, linkFor: oneOfEach(fresh.linkModes, "invite code"),
      audienceUser: { referenceId, audienceId: match.audienceId, audienceMode, ruleModes: probe.ruleModes, linkModes: probe.linkModes },
    };
  }
  throw new Error("discovery: none of user_1..user_20 is in a synced audience");
}
