/**
 * Faults on demand, per project. Nothing here applies unless asked for: per request with a `Prefer` header, or
 * per project with `PUT /_sim/faults`. Draws come from a seeded generator, so a run with a given seed repeats.
 */
import type { components } from "../../../generated/schema.d.ts";

export type FaultSettings = Required<components["schemas"]["SimFaultSettings"]>;
export type FaultKind = components["schemas"]["FaultKind"];

export const NO_FAULTS: FaultSettings = {
  rate: 0, kinds: ["500", "503"], operations: null, latency_ms: 0, jitter_ms: 0,
  fail_next: 0, fail_next_kind: "503", webhook_failures: 0, webhook_failure_status: 500, seed: 1,
};

/** mulberry32: small, fast and good enough for fault draws (and a test's seeded draws). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ProjectFaults {
  settings: FaultSettings;
  random: () => number;
}

/** What to do to one request: wait, then maybe fail. */
export interface FaultPlan {
  delayMs: number;
  kind: FaultKind | null;
}

export class FaultRegistry {
  private readonly projects = new Map<string, ProjectFaults>();

  /** `onChange`: told the whole settings after every change, counters included (the journal writes them down). */
  constructor(private readonly onChange: (projectId: string, settings: FaultSettings | null) => void = () => {}) {}

  /** Settings as they were recorded (a restart from the data dir); nothing is written. */
  restore(projectId: string, settings: FaultSettings | null): void {
    if (settings === null) this.projects.delete(projectId);
    else this.projects.set(projectId, { settings: { ...settings }, random: rng(settings.seed) });
  }

  get(projectId: string): FaultSettings {
    return this.projects.get(projectId)?.settings ?? NO_FAULTS;
  }

  set(projectId: string, input: Partial<FaultSettings>): FaultSettings {
    const settings: FaultSettings = { ...NO_FAULTS, ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) };
    this.onChange(projectId, settings);
    this.projects.set(projectId, { settings, random: rng(settings.seed) });
    return settings;
  }

  clear(projectId: string): void {
    this.onChange(projectId, null);
    this.projects.delete(projectId);
  }

  /** The project's settings applied to one request of `operationId` (`v1`: whether it is a /v1 operation). */
  plan(projectId: string, operationId: string, v1: boolean): FaultPlan {
    const p = this.projects.get(projectId);
    if (!p) return { delayMs: 0, kind: null };
    const s = p.settings;
    const applies = s.operations === null ? v1 : (s.operations as readonly string[]).includes(operationId);
    if (!applies) return { delayMs: 0, kind: null };
    const delayMs = s.latency_ms + (s.jitter_ms > 0 ? Math.round(p.random() * s.jitter_ms) : 0);
    if (s.fail_next > 0) {
      s.fail_next--;
      this.onChange(projectId, s);
      return { delayMs, kind: s.fail_next_kind };
    }
    if (s.rate > 0 && p.random() < s.rate) return { delayMs, kind: s.kinds[Math.floor(p.random() * s.kinds.length)] ?? "500" };
    return { delayMs, kind: null };
  }

  /** For the dispatcher: the status to record for this attempt instead of sending it, or null to send it. */
  takeWebhookFailure(projectId: string): number | null {
    const s = this.projects.get(projectId)?.settings;
    if (!s || s.webhook_failures <= 0) return null;
    s.webhook_failures--;
    this.onChange(projectId, s);
    return s.webhook_failure_status;
  }
}

/** `Prefer: fault=503, delay=200` (RFC 7240 preferences; several headers or comma-separated). */
export function preferredFaults(header: string | string[] | undefined): FaultPlan | { error: string } {
  const plan: FaultPlan = { delayMs: 0, kind: null };
  const text = Array.isArray(header) ? header.join(",") : header ?? "";
  for (const raw of text.split(/[,;]/)) {
    const [name, value] = raw.trim().split("=").map((x) => x?.trim().replace(/^"|"$/g, ""));
    if (name === "fault") {
      if (!["500", "503", "reset", "timeout"].includes(value ?? "")) return { error: `Prefer: fault=${value ?? ""} is not one of 500, 503, reset, timeout` };
      plan.kind = value as FaultKind;
    } else if (name === "delay") {
      if (!/^\d+$/.test(value ?? "") || Number(value) > 60_000) return { error: `Prefer: delay=${value ?? ""} must be a whole number of milliseconds up to 60000` };
      plan.delayMs = Number(value);
    }
    // Other preferences (Prism's code= and example=, return=...) are not ours: ignored, as RFC 7240 says.
  }
  return plan;
}
