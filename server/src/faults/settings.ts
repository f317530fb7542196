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

/** The settings that count down as they are used. */
export type FaultCounter = "fail_next" | "webhook_failures";

/**
 * Counters kept where several processes share them (PostgreSQL: stores/postgres/fault-counters.ts): written with each change
 * of the settings, consumed exactly once over every process.
 */
export interface SharedFaultCounters {
  /** Writes the counters of `settings` (null: none) in the change in progress. */
  set(projectId: string, settings: FaultSettings | null): void;
  /** Consumes one; what is left, or null when there was none. */
  take(projectId: string, counter: FaultCounter): Promise<number | null>;
  read(projectId: string): Promise<Record<FaultCounter, number>>;
}

export class FaultRegistry {
  private readonly projects = new Map<string, ProjectFaults>();
  private shared: SharedFaultCounters | null = null;

  /**
   * `onChange`: told the whole settings after every change (the journal writes them down): counters included when
   * they are kept here; with shared counters, only when the settings are set or cleared.
   */
  constructor(private readonly onChange: (projectId: string, settings: FaultSettings | null) => void = () => {}) {}

  /** Keeps the counters in `counters` from now on (several processes on one PostgreSQL). */
  share(counters: SharedFaultCounters): void {
    this.shared = counters;
  }

  /**
   * One counter used (a request failed, an attempt not sent): false when none was left. Kept here, it is decremented
   * and written down with the settings; shared, it is consumed where it is kept, and this process's copy only learns
   * what is left (a copy at 0 asks no more until the next PUT raises it).
   */
  private take(projectId: string, counter: FaultCounter): boolean | Promise<boolean> {
    const s = this.projects.get(projectId)?.settings;
    if (!s || s[counter] <= 0) return false;
    if (!this.shared) {
      s[counter]--;
      this.onChange(projectId, s);
      return true;
    }
    return this.shared.take(projectId, counter).then((left) => {
      const now = this.projects.get(projectId)?.settings;
      // Unless a newer PUT replaced the settings meanwhile.
      if (now === s) s[counter] = left ?? 0;
      return left !== null;
    });
  }

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
    this.shared?.set(projectId, settings);
    this.projects.set(projectId, { settings, random: rng(settings.seed) });
    return settings;
  }

  clear(projectId: string): void {
    this.onChange(projectId, null);
    this.shared?.set(projectId, null);
    this.projects.delete(projectId);
  }

  /** The settings as `GET /_sim/faults` shows them: shared counters read where they are kept. */
  async current(projectId: string): Promise<FaultSettings> {
    const settings = this.get(projectId);
    if (!this.shared || !this.projects.has(projectId)) return settings;
    return { ...settings, ...(await this.shared.read(projectId)) };
  }

  /**
   * The project's settings applied to one request of `operationId` (`v1`: whether it is a /v1 operation); a promise
   * only when a shared counter has to be asked.
   */
  plan(projectId: string, operationId: string, v1: boolean): FaultPlan | Promise<FaultPlan> {
    const p = this.projects.get(projectId);
    if (!p) return { delayMs: 0, kind: null };
    const s = p.settings;
    const applies = s.operations === null ? v1 : (s.operations as readonly string[]).includes(operationId);
    if (!applies) return { delayMs: 0, kind: null };
    const delayMs = s.latency_ms + (s.jitter_ms > 0 ? Math.round(p.random() * s.jitter_ms) : 0);
    const otherwise = (): FaultPlan => (s.rate > 0 && p.random() < s.rate ? { delayMs, kind: s.kinds[Math.floor(p.random() * s.kinds.length)] ?? "500" } : { delayMs, kind: null });
    const failed = this.take(projectId, "fail_next");
    if (failed === true) return { delayMs, kind: s.fail_next_kind };
    if (failed === false) return otherwise();
    return failed.then((yes) => (yes ? { delayMs, kind: s.fail_next_kind } : otherwise()));
  }

  /** For the dispatcher: the status to record for this attempt instead of sending it, or null to send it. */
  takeWebhookFailure(projectId: string): number | null | Promise<number | null> {
    const s = this.projects.get(projectId)?.settings;
    if (!s) return null;
    const taken = this.take(projectId, "webhook_failures");
    if (typeof taken === "boolean") return taken ? s.webhook_failure_status : null;
    return taken.then((yes) => (yes ? s.webhook_failure_status : null));
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
