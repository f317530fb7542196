/** Public types of the interview client (the seed's `@service/interviews-react-native` surface). */
import type { components } from "../../../generated/api.d.ts";

type S = components["schemas"];
export type Primitive = string | number | boolean | null;
export type InvitePrompt = S["InvitePrompt"];
export type LaunchMode = S["LaunchMode"];
export type PromptPhase = S["PromptPhase"];

/** An invite waiting for the user: set locally by a matching event or an audience match. Frozen. */
export interface PendingInvite {
  readonly launchRuleId: string;
  readonly experimentId: string;
  /** Set when the invite came from a synced audience match. */
  readonly audienceId?: string;
  readonly prompt: Readonly<InvitePrompt>;
  /** The app event that created it (attribution only); absent for an audience match. */
  readonly triggerEvent?: string;
  readonly launchToken: string;
  /** When the signed launch expires, ms since epoch, by the server's clock (informational: the server judges expiry). */
  readonly expiresAt: number;
}

/** An interview opened in the in-app web view. Frozen. */
export interface ActiveLaunch {
  readonly url: string;
  /** When the signed URL stops working, ms since epoch. */
  readonly expiresAt: number | null;
  readonly launchRuleId?: string;
  readonly experimentId?: string;
  readonly audienceId?: string;
  /** Where it came from: an accepted invite or an invite link. */
  readonly source: "invite" | "link";
}

/** What `useInterviews` returns; a new object only when one of the two changed. */
export interface Snapshot {
  readonly pendingInvite: PendingInvite | null;
  readonly activeLaunch: ActiveLaunch | null;
}

export type StartResult = "webview" | "external_browser" | "not_eligible" | "expired" | "none";
export type LinkResult =
  | { handled: true; mode: LaunchMode }
  | { handled: false; reason: "not_interview_link" | "resolve_failed" };

/** Everything the client reports instead of throwing. */
export type Diagnostic =
  | { type: "config_loaded"; source: "network" | "storage"; rules: number; audienceMatches: number; ttlSeconds: number }
  | { type: "config_failed"; error: string; retryInMs: number }
  | { type: "event_ignored"; eventName: string; reason: "no_matching_rule" | "invite_pending" | "launch_active" | "invite_dismissed" | "config_unavailable" | "invalid_event_name" }
  | { type: "metadata_dropped"; key: string; reason: string }
  | { type: "mapper_failed"; eventName: string; error: string }
  | { type: "trigger_event_dropped"; reason: "too_long" }
  | { type: "launch_failed"; error: string; status?: number }
  | { type: "launch_discarded"; reason: "user_changed" | "invite_gone" }
  | { type: "fallback_opened"; url: string }
  | { type: "fallback_unavailable"; url: string }
  | { type: "prompt_event_failed"; phase: PromptPhase; error: string; retryInMs: number }
  | { type: "prompt_event_dropped"; phase: PromptPhase; reason: string }
  | { type: "track_failed"; error: string }
  | { type: "bridge_error"; error: string }
  | { type: "storage_failed"; error: string };

/**
 * Optional async key-value store (AsyncStorage, localStorage, ...) that keeps the config cache, the queue of prompt
 * events and an opt-out across restarts, under keys of this server URL and public key (storage.ts).
 */
export interface KeyValueStorage {
  getItem(key: string): Promise<string | null> | string | null;
  setItem(key: string, value: string): Promise<void> | void;
  /** Used by `reset()` and `optOut()` where present; otherwise the key is set to an empty value. */
  removeItem?(key: string): Promise<void> | void;
}

/**
 * A refusal the app should act on: the service answered 401 (the public key is wrong or revoked) or 403. Nothing is
 * dropped for it: queued prompt events stay queued and are retried with backoff.
 */
export interface InterviewError {
  type: "unauthorized" | "forbidden";
  status: 401 | 403;
  /** What was refused. */
  operation: "config" | "launch" | "link" | "prompt_event";
  message: string;
}

/** Opens a URL outside the app; a promise it returns is awaited, and its rejection means nothing opened. */
export type OpenFallback = (url: string) => void | PromiseLike<unknown>;

export interface Clock {
  now(): number;
}

export interface InterviewClientOptions {
  /** Public SDK key (`pk_live_...`). */
  publicKey: string;
  /** Stable person id; null or undefined when signed out. */
  referenceId?: string | null;
  /** Up to and including `/api`. */
  baseUrl: string;
  /**
   * Hosts whose `/i/{code}` and `/interviews/{code}` links are interview links (default: the host of `baseUrl`).
   * `handleLink` leaves every other URL to the app (`not_interview_link`), so the app's own `/i/...` routes work.
   */
  linkHosts?: readonly string[];
  /**
   * Opens a URL outside the app. Default: the platform's link opener (`Linking.openURL` on React Native,
   * `window.open` in a browser). Where there is none, `external_browser` resolves `none` with `fallback_unavailable`;
   * when it throws, or returns a promise that rejects (as `Linking.openURL` does when nothing can open the URL),
   * `none` with a `bridge_error`.
   */
  openFallbackUrl?: OpenFallback;
  /** Allowlist mapper from an analytics event's properties to metadata; only JSON primitives are kept. */
  mapTrackProperties?: (eventName: string, properties: unknown) => Record<string, unknown> | undefined;
  /** Primitive-valued metadata added to launches. */
  metadata?: Record<string, Primitive>;
  onDiagnostic?: (event: Diagnostic) => void;
  /** Called when the service refuses the key (401) or access (403); see InterviewError. Errors it throws are ignored. */
  onError?: (error: InterviewError) => void;
  /**
   * Start opted out (for a user who declined before the client was made). Otherwise the stored choice of
   * `optOut()`/`optIn()` applies, read from `storage`; until it is read, nothing is sent.
   */
  optedOut?: boolean;
  /** The fetch to use (default: the global one). */
  fetch?: FetchLike;
  clock?: Clock;
  storage?: KeyValueStorage;
}

/** What the client sends through fetch. */
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** An AbortSignal (typed loosely: React Native's and the DOM's AbortSignal types differ). */
  signal?: any;
}

/**
 * The part of `fetch` the client uses, typed structurally: the published declarations need neither the DOM's nor
 * React Native's global types, and the global fetch of either fits.
 */
export type FetchLike = (url: string, init: FetchInit) => Promise<{ ok: boolean; status: number; text(): Promise<string> }>;
