/**
 * Faults on demand, per project. Nothing here applies unless asked for: per request with a `Prefer` header, or
 * per project with `PUT /_sim/faults`. Draws come from a seeded generator, so a run with a given seed repeats.
 */
import type { components } from "../../../generated/schema.d.ts";
import type { FaultCounter, SharedFaultSettings } from "../stores/faults.ts";

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
  private shared: SharedFaultSettings | null = null;
  /** Shared settings: this process's seeded draws, per project, for the settings' version they were seeded for. */
  private readonly draws = new Map<string, { version: string; random: () => number }>();

  /** `onChange`: told the whole settings after every change (the backend writes them down), unless they are shared. */
  constructor(private readonly onChange: (projectId: string, settings: FaultSettings | null) => void = () => {}) {}

  /** Keeps the settings in `settings` from now on (several processes on one PostgreSQL). */
  share(settings: SharedFaultSettings): void {
    this.shared = settings;
  }

  /** Settings as they were recorded (a restart from the data dir); nothing is written. */
  restore(projectId: string, settings: FaultSettings | null): void {
    if (settings === null) this.projects.delete(projectId);
    else this.projects.set(projectId, { settings: { ...settings }, random: rng(settings.seed) });
  }

  /** The settings this process keeps (memory and SQLite; with shared settings, none). */
  get(projectId: string): FaultSettings {
    return this.projects.get(projectId)?.settings ?? NO_FAULTS;
  }

  /** True when this process knows the project has no fault settings at all (never with shared settings). */
  quiet(projectId: string): boolean {
    return !this.shared && !this.projects.has(projectId);
  }

  /** The project's settings with their draws: this process's, or the shared ones as they are now. */
  private async sharedFaults(projectId: string): Promise<ProjectFaults | null> {
    const row = await this.shared!.read(projectId);
    if (!row) {
      this.draws.delete(projectId);
      return null;
    }
    let draws = this.draws.get(projectId);
    if (draws?.version !== row.version) this.draws.set(projectId, (draws = { version: row.version, random: rng(row.settings.seed) }));
    return { settings: row.settings, random: draws.random };
  }

  private faults(projectId: string): ProjectFaults | null | Promise<ProjectFaults | null> {
    return this.shared ? this.sharedFaults(projectId) : (this.projects.get(projectId) ?? null);
  }

  /**
   * One counter used (a request failed, an attempt not sent): false when none was left. Kept here, it is decremented
   * and written down with the settings; shared, it is consumed by one statement where it is kept.
   */
  private take(projectId: string, s: FaultSettings, counter: FaultCounter): boolean | Promise<boolean> {
    if (s[counter] <= 0) return false;
    if (this.shared) return this.shared.take(projectId, counter).then((left) => left !== null);
    s[counter]--;
    this.onChange(projectId, s);
    return true;
  }

  async set(projectId: string, input: Partial<FaultSettings>): Promise<FaultSettings> {
    const settings: FaultSettings = { ...NO_FAULTS, ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) };
    if (this.shared) {
      await this.shared.set(projectId, settings);
      return settings;
    }
    this.onChange(projectId, settings);
    this.projects.set(projectId, { settings, random: rng(settings.seed) });
    return { ...settings };
  }

  async clear(projectId: string): Promise<void> {
    if (this.shared) return this.shared.set(projectId, null);
    this.onChange(projectId, null);
    this.projects.delete(projectId);
  }

  /** The settings as `GET /_sim/faults` shows them, counters as they are left. */
  async current(projectId: string): Promise<FaultSettings> {
    const p = await this.faults(projectId);
    return p ? { ...p.settings } : NO_FAULTS;
  }

  /**
   * The project's settings applied to one request of `operationId` (`v1`: whether it is a /v1 operation); a promise
   * when the settings or a counter are read where they are shared.
   */
  plan(projectId: string, operationId: string, v1: boolean): FaultPlan | Promise<FaultPlan> {
    const p = this.faults(projectId);
    return p instanceof Promise ? p.then((x) => this.planFor(projectId, x, operationId, v1)) : this.planFor(projectId, p, operationId, v1);
  }

  private planFor(projectId: string, p: ProjectFaults | null, operationId: string, v1: boolean): FaultPlan | Promise<FaultPlan> {
    if (!p) return { delayMs: 0, kind: null };
    const s = p.settings;
    const applies = s.operations === null ? v1 : (s.operations as readonly string[]).includes(operationId);
    if (!applies) return { delayMs: 0, kind: null };
    const delayMs = s.latency_ms + (s.jitter_ms > 0 ? Math.round(p.random() * s.jitter_ms) : 0);
    const otherwise = (): FaultPlan => (s.rate > 0 && p.random() < s.rate ? { delayMs, kind: s.kinds[Math.floor(p.random() * s.kinds.length)] ?? "500" } : { delayMs, kind: null });
    const failed = this.take(projectId, s, "fail_next");
    if (failed === true) return { delayMs, kind: s.fail_next_kind };
    if (failed === false) return otherwise();
    return failed.then((yes) => (yes ? { delayMs, kind: s.fail_next_kind } : otherwise()));
  }

  /**
   * For the dispatcher: the status to record for this attempt instead of sending it, or null to send it; a promise
   * only when the settings are shared (the dispatcher of one process decides at once).
   */
  takeWebhookFailure(projectId: string): number | null | Promise<number | null> {
    const decide = (p: ProjectFaults | null): number | null | Promise<number | null> => {
      if (!p) return null;
      const taken = this.take(projectId, p.settings, "webhook_failures");
      if (typeof taken === "boolean") return taken ? p.settings.webhook_failure_status : null;
      return taken.then((yes) => (yes ? p.settings.webhook_failure_status : null));
    };
    const p = this.faults(projectId);
    return p instanceof Promise ? p.then(decide) : decide(p);
  }
}

const NOTHING_PREFERRED: FaultPlan = Object.freeze({ delayMs: 0, kind: null });

/** `Prefer: fault=503, delay=200` (RFC 7240 preferences; several headers or comma-separated). */
export function preferredFaults(header: string | string[] | undefined): FaultPlan | { error: string } {
  // Nearly every request asks none: no parsing, no allocation.
  if (header === undefined) return NOTHING_PREFERRED;
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
