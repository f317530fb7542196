/**
 * The invite lifecycle as one pure transition function, (state, event) -> (state, effects), mirroring the seed's
 * client-library table row by row (the comments name the rows). Nothing here does I/O or reads a clock: the
 * effects it returns are carried out by small modules (config-cache, launch, opener, prompt-funnel, storage) and
 * their outcomes come back as events. client.ts wires the two.
 *
 * Rows of the seed's table:
 * - no invite + analytics event matching a cached trigger rule -> pending invite (no network call)
 * - no invite + synced audience match -> pending invite
 * - pending invite + startPendingInvite -> active launch (webview) | invite consumed, fallback opened
 *   (external_browser) | no invite (expired, not_eligible)
 * - pending invite + dismissPendingInvite -> no invite
 * - any + setUser (new identity) -> no invite; config refetched; the previous user's launch in flight discarded
 * - no invite + handleLink -> active launch | external browser | not_eligible
 * Beyond the table (the app's controls): optOut/optIn, reset, closing the active launch.
 */
import type { LaunchDecision, ParticipantConfig } from "./api.ts";
import type { ActiveLaunch, Diagnostic, LinkResult, PendingInvite, PromptPhase, StartResult } from "./types.ts";

export interface MachineState {
  readonly referenceId: string | null;
  /** Bumped by every identity change: an answer to a request made for an older identity is discarded. */
  readonly generation: number;
  readonly optedOut: boolean;
  readonly pendingInvite: PendingInvite | null;
  readonly activeLaunch: ActiveLaunch | null;
  /** The invite whose launch request is in flight (it stays the pending invite until the server answers). */
  readonly starting: PendingInvite | null;
  /** The invite whose prompt was reported shown (the `shown` phase is posted once per invite). */
  readonly shown: PendingInvite | null;
  /** Audience invites already offered to this identity: a dismissed one is not offered again at each refresh. */
  readonly offeredAudiences: ReadonlySet<string>;
  /** Trigger rules (by rule and experiment) whose invite this identity dismissed: the next event does not bring it back. */
  readonly dismissedRules: ReadonlySet<string>;
}

/** A request made by the machine; the wiring answers it with an event carrying the same `ticket`. */
export type Ticket = number;

export type MachineEvent =
  | { type: "tracked"; eventName: string; properties: unknown; config: ParticipantConfig | null }
  | { type: "config_loaded"; config: ParticipantConfig; referenceId: string | null }
  | { type: "accept"; ticket: Ticket }
  | { type: "launch_answered"; ticket: Ticket; invite: PendingInvite; generation: number; decision: LaunchDecision }
  | { type: "launch_failed"; ticket: Ticket; invite: PendingInvite; generation: number; status?: number; error: string }
  | { type: "link_answered"; ticket: Ticket; generation: number; decision: LaunchDecision }
  | { type: "link_failed"; ticket: Ticket; error: string; status?: number }
  | { type: "fallback_result"; ticket: Ticket; opened: boolean; invite?: PendingInvite }
  | { type: "dismiss" }
  | { type: "prompt_shown" }
  | { type: "set_user"; referenceId: string | null }
  | { type: "close_launch" }
  | { type: "opt_out" }
  | { type: "opt_in" }
  | { type: "reset" };

export type Effect =
  | { type: "diagnose"; event: Diagnostic }
  /** Run the app's mapTrackProperties for the event that made `invite`: its metadata goes with the launch. */
  | { type: "map_properties"; invite: PendingInvite; eventName: string; properties: unknown }
  /** Fetch the current identity's config (the cache shares a fetch in flight and honours its backoff). */
  | { type: "fetch_config" }
  /** Drop the cached config; `stored`: the stored copy too. */
  | { type: "forget_config"; stored: boolean }
  | { type: "launch"; ticket: Ticket; invite: PendingInvite; generation: number }
  | { type: "open_fallback"; ticket: Ticket; url: string; invite?: PendingInvite }
  | { type: "post_phase"; phase: PromptPhase; invite: PendingInvite }
  /** Opted out: queued prompt events are dropped, in memory and in storage. */
  | { type: "discard_queue" }
  | { type: "store_opt_out"; optedOut: boolean }
  | { type: "resolve_start"; ticket: Ticket; result: StartResult }
  | { type: "resolve_link"; ticket: Ticket; result: LinkResult };

export interface Transition {
  state: MachineState;
  effects: Effect[];
}

export function initialState(referenceId: string | null, optedOut: boolean): MachineState {
  return { referenceId, generation: 0, optedOut, pendingInvite: null, activeLaunch: null, starting: null, shown: null, offeredAudiences: new Set(), dismissedRules: new Set() };
}

export const ruleKey = (r: { launchRuleId: string; experimentId?: string | null }) => `${r.launchRuleId}/${r.experimentId ?? ""}`;
const audienceKey = (m: { audienceId: string; launchRuleId: string }) => `${m.audienceId}/${m.launchRuleId}`;
const diagnose = (event: Diagnostic): Effect => ({ type: "diagnose", event });
const toLaunch = (d: LaunchDecision, source: ActiveLaunch["source"]): ActiveLaunch =>
  Object.freeze({
    url: d.url!, expiresAt: d.expiresAt ? Date.parse(d.expiresAt) : null, source,
    ...(d.launchRuleId ? { launchRuleId: d.launchRuleId } : {}),
    ...(d.experimentId ? { experimentId: d.experimentId } : {}),
    ...(d.audienceId ? { audienceId: d.audienceId } : {}),
  });

/** A new identity, or none: nothing of the previous one (invite, launch, offers, dismissals) carries over. */
function forgetIdentity(s: MachineState, referenceId: string | null): MachineState {
  return { ...s, referenceId, generation: s.generation + 1, pendingInvite: null, activeLaunch: null, starting: null, shown: null, offeredAudiences: new Set(), dismissedRules: new Set() };
}

export function transition(s: MachineState, e: MachineEvent): Transition {
  const stay = (...effects: Effect[]): Transition => ({ state: s, effects });
  switch (e.type) {
    // no invite + analytics event matching a cached trigger rule (rule matches locally) -> pending invite.
    case "tracked": {
      if (s.optedOut) return stay();
      if (!e.config) return stay(diagnose({ type: "event_ignored", eventName: e.eventName, reason: "config_unavailable" }));
      const rule = e.config.triggerRules.find((r) => r.eventName === e.eventName);
      const ignored = (reason: "no_matching_rule" | "invite_pending" | "launch_active" | "invite_dismissed") => stay(diagnose({ type: "event_ignored", eventName: e.eventName, reason }));
      if (!rule) return ignored("no_matching_rule");
      if (s.pendingInvite) return ignored("invite_pending");
      if (s.activeLaunch) return ignored("launch_active");
      if (s.dismissedRules.has(ruleKey(rule))) return ignored("invite_dismissed");
      const invite: PendingInvite = Object.freeze({
        launchRuleId: rule.launchRuleId, experimentId: rule.experimentId, prompt: Object.freeze({ ...rule.prompt }), triggerEvent: e.eventName,
        launchToken: rule.launchToken, expiresAt: Date.parse(rule.launchTokenExpiresAt),
      });
      return { state: { ...s, pendingInvite: invite }, effects: [{ type: "map_properties", invite, eventName: e.eventName, properties: e.properties }] };
    }

    // no invite + synced audience match (current referenceId matched) -> pending invite.
    case "config_loaded": {
      if (s.optedOut || e.referenceId !== s.referenceId || s.pendingInvite || s.activeLaunch) return stay();
      const match = e.config.audienceMatches.find((m) => !s.offeredAudiences.has(audienceKey(m)));
      if (!match) return stay();
      const invite: PendingInvite = Object.freeze({
        launchRuleId: match.launchRuleId, experimentId: match.experimentId, audienceId: match.audienceId, prompt: Object.freeze({ ...match.prompt }),
        launchToken: match.launchToken, expiresAt: Date.parse(match.launchTokenExpiresAt),
      });
      return { state: { ...s, pendingInvite: invite, offeredAudiences: new Set([...s.offeredAudiences, audienceKey(match)]) }, effects: [] };
    }

    // pending invite + startPendingInvite: the server decides (below, launch_answered / launch_failed).
    case "accept": {
      const invite = s.pendingInvite;
      if (!invite || s.optedOut) return stay({ type: "resolve_start", ticket: e.ticket, result: "none" });
      return { state: { ...s, starting: invite }, effects: [{ type: "post_phase", phase: "accepted", invite }, { type: "launch", ticket: e.ticket, invite, generation: s.generation }] };
    }

    case "launch_answered": {
      const done = (state: MachineState, result: StartResult, ...effects: Effect[]): Transition => ({ state, effects: [...effects, { type: "resolve_start", ticket: e.ticket, result }] });
      const settled = { ...s, starting: s.starting === e.invite ? null : s.starting };
      // any + setUser (new identity): the previous user's launch in flight is discarded.
      if (e.generation !== s.generation) return done(s, "none", diagnose({ type: "launch_discarded", reason: "user_changed" }));
      // Dismissed (or replaced) while the server answered: the user no longer wants this one.
      if (s.pendingInvite !== e.invite) return done(settled, "none", diagnose({ type: "launch_discarded", reason: "invite_gone" }));
      const d = e.decision;
      const consumed = { ...settled, pendingInvite: null };
      if (d.mode !== "not_eligible" && !d.url) return done(consumed, "none", diagnose({ type: "launch_failed", error: `launch decision ${d.mode} without a url` }));
      // pending invite + startPendingInvite (server returns webview) -> active launch; result webview.
      if (d.mode === "webview") return done({ ...consumed, activeLaunch: toLaunch(d, "invite") }, "webview", { type: "post_phase", phase: "launched", invite: e.invite });
      // pending invite + startPendingInvite (server returns external_browser) -> invite consumed; fallback URL opened.
      if (d.mode === "external_browser") return { state: consumed, effects: [{ type: "open_fallback", ticket: e.ticket, url: d.url!, invite: e.invite }] };
      // pending invite + startPendingInvite (server declines) -> no invite; result not_eligible.
      return done(consumed, "not_eligible", { type: "post_phase", phase: "not_eligible", invite: e.invite });
    }

    case "launch_failed": {
      const done = (state: MachineState, result: StartResult, ...effects: Effect[]): Transition => ({ state, effects: [...effects, { type: "resolve_start", ticket: e.ticket, result }] });
      if (e.generation !== s.generation) return done(s, "none", diagnose({ type: "launch_discarded", reason: "user_changed" }));
      const settled = { ...s, starting: s.starting === e.invite ? null : s.starting };
      const cleared = { ...settled, pendingInvite: s.pendingInvite === e.invite ? null : s.pendingInvite };
      // pending invite + startPendingInvite (signed launch expired) -> no invite; result expired.
      if (e.status === 410) return done(cleared, "expired", { type: "post_phase", phase: "expired", invite: e.invite });
      // A 4xx answer means this invite can never launch; a network error or a 5xx may pass, so the invite stays.
      const failed = diagnose({ type: "launch_failed", error: e.error, ...(e.status !== undefined ? { status: e.status } : {}) });
      return done(e.status !== undefined && e.status < 500 ? cleared : settled, "none", failed);
    }

    case "fallback_result": {
      // external_browser is reported exactly when something opened the URL; otherwise the seed's none.
      if (!e.invite) return stay({ type: "resolve_link", ticket: e.ticket, result: e.opened ? { handled: true, mode: "external_browser" } : { handled: false, reason: "resolve_failed" } });
      if (!e.opened) return stay({ type: "resolve_start", ticket: e.ticket, result: "none" });
      return stay({ type: "post_phase", phase: "fallback_opened", invite: e.invite }, { type: "resolve_start", ticket: e.ticket, result: "external_browser" });
    }

    // no invite + handleLink with a valid invite link (server resolves it) -> active launch, external browser, or not_eligible.
    case "link_answered": {
      const resolved = (result: LinkResult, ...effects: Effect[]): Transition => ({ state: s, effects: [...effects, { type: "resolve_link", ticket: e.ticket, result }] });
      if (e.generation !== s.generation) return resolved({ handled: false, reason: "resolve_failed" }, diagnose({ type: "launch_discarded", reason: "user_changed" }));
      const d = e.decision;
      if (d.mode !== "not_eligible" && !d.url) return resolved({ handled: false, reason: "resolve_failed" }, diagnose({ type: "launch_failed", error: `launch decision ${d.mode} without a url` }));
      // A code the service does not know was not resolved: the link is not the service's to handle.
      if (d.mode === "not_eligible" && d.reason === "unknown_invite") return resolved({ handled: false, reason: "resolve_failed" }, diagnose({ type: "launch_failed", error: "unknown invite code" }));
      if (d.mode === "webview") return { state: { ...s, pendingInvite: null, activeLaunch: toLaunch(d, "link") }, effects: [{ type: "resolve_link", ticket: e.ticket, result: { handled: true, mode: "webview" } }] };
      if (d.mode === "external_browser") return stay({ type: "open_fallback", ticket: e.ticket, url: d.url! });
      return resolved({ handled: true, mode: d.mode });
    }

    case "link_failed":
      return stay(diagnose({ type: "launch_failed", error: e.error, ...(e.status !== undefined ? { status: e.status } : {}) }), { type: "resolve_link", ticket: e.ticket, result: { handled: false, reason: "resolve_failed" } });

    // pending invite + dismissPendingInvite -> no invite; interview not opened.
    case "dismiss": {
      const invite = s.pendingInvite;
      if (!invite) return stay();
      const dismissedRules = invite.audienceId ? s.dismissedRules : new Set([...s.dismissedRules, ruleKey(invite)]);
      return { state: { ...s, pendingInvite: null, dismissedRules }, effects: [{ type: "post_phase", phase: "dismissed", invite }] };
    }

    case "prompt_shown":
      if (!s.pendingInvite || s.shown === s.pendingInvite) return stay();
      return { state: { ...s, shown: s.pendingInvite }, effects: [{ type: "post_phase", phase: "shown", invite: s.pendingInvite }] };

    // any + setUser (new identity) -> no invite; trigger config refetched; in-flight launch discarded.
    case "set_user":
      if (e.referenceId === s.referenceId) return stay();
      return { state: forgetIdentity(s, e.referenceId), effects: [{ type: "forget_config", stored: false }, ...(s.optedOut ? [] : [{ type: "fetch_config" } as const])] };

    case "close_launch":
      return { state: { ...s, activeLaunch: null }, effects: [] };

    // Opted out: nothing is sent or stored (the choice itself excepted), and what was queued is dropped.
    case "opt_out":
      if (s.optedOut) return stay();
      return { state: { ...s, optedOut: true, pendingInvite: null, starting: null, generation: s.generation + 1 }, effects: [{ type: "store_opt_out", optedOut: true }, { type: "discard_queue" }, { type: "forget_config", stored: true }] };

    case "opt_in":
      if (!s.optedOut) return stay();
      return { state: { ...s, optedOut: false }, effects: [{ type: "store_opt_out", optedOut: false }, { type: "fetch_config" }] };

    // Logout: the user, the pending invite and the cached config are forgotten; queued events still go out.
    case "reset":
      return { state: forgetIdentity(s, null), effects: [{ type: "forget_config", stored: true }, ...(s.optedOut ? [] : [{ type: "fetch_config" } as const])] };
  }
}
