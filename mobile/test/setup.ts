/** Test plumbing: the real reference server on a shared fake clock, and a fetch that counts calls. */
import { startServer, type RunningServer } from "../../server/src/testing.ts";
import { createInterviewClient, type InterviewClient } from "../src/index.ts";
import type { Diagnostic, InterviewClientOptions } from "../src/core/types.ts";

export const PK = "pk_live_acme_0123456789abcdef0123456789abcdef";
export const TOKEN_TTL_MS = 60_000;
export const CONFIG_TTL_S = 30;

export function fakeClock(start = Date.parse("2026-03-02T12:00:00.000Z")) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

export async function startParticipantServer(clock: { now(): number }): Promise<RunningServer> {
  return startServer({ clock, launchTokenTtlMs: TOKEN_TTL_MS, participantConfigTtlSeconds: CONFIG_TTL_S });
}

export interface Harness {
  client: InterviewClient;
  calls: string[];
  opened: string[];
  diagnostics: Diagnostic[];
}

let users = 0;
/** A referenceId that has never completed an interview, so the server's answer depends only on the rule. */
export const freshUser = () => `mobile_test_user_${process.pid}_${++users}`;

export function makeClient(baseUrl: string, clock: { now(): number }, extra: Partial<InterviewClientOptions> = {}): Harness {
  const calls: string[] = [];
  const opened: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const counting: typeof fetch = (input, init) => {
    calls.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
    return fetch(input, init);
  };
  const client = createInterviewClient({
    publicKey: PK, baseUrl, clock, referenceId: freshUser(), fetch: counting,
    openFallbackUrl: (url) => void opened.push(url), onDiagnostic: (d) => void diagnostics.push(d), ...extra,
  });
  return { client, calls, opened, diagnostics };
}

/** Lets fire-and-forget work (prompt events) reach the server. */
export const settle = () => new Promise((r) => setTimeout(r, 30));
