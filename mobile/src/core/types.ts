/** Public types of the interview client (the seed's `@service/interviews-react-native` surface). */
import type { components } from "../../../generated/schema.d.ts";

type S = components["schemas"];
export type Primitive = string | number | boolean | null;
export type InvitePrompt = S["InvitePrompt"];

/** An invite waiting for the user: set locally by a matching event or an audience match. */
export interface PendingInvite {
  launchRuleId: string;
  experimentId: string;
  audienceId?: string;
  prompt: InvitePrompt;
  /** The app event that created it (attribution only); absent for an audience match. */
  triggerEvent?: string;
  launchToken: string;
  /** When the signed launch expires, ms since epoch. */
  expiresAt: number;
}

/** An interview opened in the in-app web view. */
export interface ActiveLaunch {
  url: string;
  expiresAt: number | null;
  launchRuleId?: string;
  experimentId?: string;
  audienceId?: string;
  /** Where it came from. */
  source: "invite" | "link";
}

export interface Snapshot {
  pendingInvite: PendingInvite | null;
  activeLaunch: ActiveLaunch | null;
}

export type StartResult = "webview" | "external_browser" | "not_eligible" | "expired" | "none";
export type LinkResult =
  | { handled: true; mode: "webview" | "external_browser" | "not_eligible" }
  | { handled: false; reason: "not_interview_link" | "resolve_failed" };

export type Diagnostic =
  | { type: "config_loaded"; rules: number; audienceMatches: number; ttlSeconds: number }
  | { type: "config_failed"; error: string }
  | { type: "event_ignored"; eventName: string; reason: "no_matching_rule" | "invite_pending" | "launch_active" }
  | { type: "metadata_dropped"; key: string; reason: string }
  | { type: "launch_failed"; error: string }
  | { type: "launch_discarded"; reason: "user_changed" }
  | { type: "fallback_opened"; url: string }
  | { type: "prompt_event_failed"; phase: string; error: string }
  | { type: "track_failed"; error: string }
  | { type: "bridge_error"; error: string }
  | { type: "storage_failed"; error: string };

export interface KeyValueStorage {
  getItem(key: string): Promise<string | null> | string | null;
  setItem(key: string, value: string): Promise<void> | void;
}

export interface InterviewClientOptions {
  /** Public SDK key (`pk_live_...`). */
  publicKey: string;
  /** Stable person id; null or undefined when signed out. */
  referenceId?: string | null;
  /** Up to and including `/api`. */
  baseUrl: string;
  /** Opens a URL outside the app; default: reports a diagnostic (headless core has no platform opener). */
  openFallbackUrl?: (url: string) => void;
  /** Allowlist mapper from an analytics event's properties to metadata; only JSON primitives are kept. */
  mapTrackProperties?: (eventName: string, properties: unknown) => Record<string, unknown> | undefined;
  /** Primitive-valued metadata added to launches. */
  metadata?: Record<string, Primitive>;
  onDiagnostic?: (event: Diagnostic) => void;
  fetch?: typeof fetch;
  clock?: { now(): number };
  storage?: KeyValueStorage;
}
