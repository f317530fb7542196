/**
 * createInterviewClient: the behaviour of the seed's mobile client library, framework-agnostic.
 *
 * - Events are matched locally against the cached trigger config (config-cache.ts): unrelated events cost no
 *   request, and a matching one sets the pending invite at once, synchronously, before any network.
 * - Eligibility and expiry are the server's: accepting always asks it, and it answers webview, external_browser,
 *   not_eligible, or 410 for a signed launch past its expiry (`expired`). The device's clock is never compared with
 *   the server's times, so a phone whose clock runs fast still launches.
 * - external_browser opens the URL with the app's opener (default: the platform's); when nothing could open it, the
 *   result is `none`, never a success that opened nothing. Fallback URLs' origins are allowed in the host.
 * - A new identity (setUser) clears the invite and the launch, refetches the config, and discards any launch
 *   still in flight for the previous user (its answer never sets activeLaunch).
 * - Nothing here throws into the app: failures go to onDiagnostic, and an onDiagnostic that throws is ignored.
 */
import { HttpError, ParticipantApi, type LaunchDecision, type LaunchRequest, type ParticipantConfig } from "./api.ts";
import { ConfigCache } from "./config-cache.ts";
import { httpsParts, inviteCodeOf, originOf } from "./links.ts";
import { primitivesOnly } from "./primitives.ts";
import { promptFunnel } from "./prompt-funnel.ts";
import { SnapshotStore } from "./snapshot-store.ts";
import { wrapTrack, type TrackClient } from "./track-proxy.ts";
import type { ActiveLaunch, Diagnostic, InterviewClientOptions, LinkResult, PendingInvite, Primitive, Snapshot, StartResult } from "./types.ts";

export interface InterviewClient {
  /** A new identity (or null on sign-out) clears the invite and launch and refetches the config; metadata alone just updates. */
  setUser(referenceId: string | null, metadata?: Record<string, Primitive>): void;
  wrapTrackClient<T extends TrackClient>(client: T): T;
  /** For providers whose event method is not `track`: call the provider, then this. */
  track(eventName: string, properties?: unknown): void;
  subscribe(listener: () => void): () => void;
  getSnapshot(): Snapshot;
  startPendingInvite(): Promise<StartResult>;
  dismissPendingInvite(): void;
  handleLink(url: string): Promise<LinkResult>;
  /** The host closed the in-app interview (the user, or the interview page). */
  closeActiveLaunch(): void;
  /** The built-in or a custom prompt is on screen: records the `shown` funnel phase once per invite. */
  reportPromptShown(): void;
  /** Resolves once the stored config has been read and no config request is in flight; for hosts and tests. */
  ready(): Promise<void>;
  /** Reports a diagnostic through the client's onDiagnostic (used by the React host). */
  diagnose(event: Diagnostic): void;
  /** Origins of the fallback URLs the server has sent; the host always allows them, as it does the launch's. */
  fallbackOrigins(): readonly string[];
  /**
   * Sends the queued prompt events now, backoff or not; resolves when the attempt ends. The React Native entry
   * calls it when the app goes to the background, the web entry when the page is hidden.
   */
  flush(): Promise<void>;
  /** Prompt events queued and not yet accepted by the service. */
  pendingEvents(): number;
}

/**
 * The platform's link opener where the core can see one: a browser's `window.open` (new tab, no opener). React
 * Native's entry passes `Linking.openURL`; on a bare JavaScript VM there is none.
 */
function platformOpener(): ((url: string) => void) | undefined {
  const open = (globalThis as { open?: (url: string, target?: string, features?: string) => unknown }).open;
  if (typeof open !== "function") return undefined;
  return (url) => {
    // A blocked pop-up returns null: nothing opened.
    if (open.call(globalThis, url, "_blank", "noopener,noreferrer") === null) throw new Error("the browser blocked the new window");
  };
}

/** The server caps `triggerEvent`; attribution is not worth failing a launch for, so a longer name is left out. */
const TRIGGER_EVENT_MAX = 200;

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function createInterviewClient(options: InterviewClientOptions): InterviewClient {
  const clock = options.clock ?? { now: () => Date.now() };
  const diagnose = (event: Diagnostic) => {
    try {
      options.onDiagnostic?.(event);
    } catch {
      // A diagnostics handler must never break the app either.
    }
  };
  const dropped = (key: string, reason: string) => diagnose({ type: "metadata_dropped", key, reason });
  const api = new ParticipantApi(options.baseUrl, options.publicKey, options.fetch ?? ((url, init) => globalThis.fetch(url, init)));
  const store = new SnapshotStore((err) => diagnose({ type: "bridge_error", error: `snapshot listener threw: ${errorText(err)}` }));

  // The service's link host by default: the host of baseUrl (http too, for a sandbox on loopback).
  const linkHosts = options.linkHosts ?? [httpsParts(options.baseUrl.replace(/^http:/i, "https:"))?.host ?? ""].filter(Boolean);
  let referenceId: string | null = options.referenceId ?? null;
  const defaultMetadata = primitivesOnly(options.metadata, dropped);
  let metadata = defaultMetadata;
  /** Bumped by every identity change: work started for an older identity is discarded. */
  let generation = 0;
  /** Audience invites already offered to this identity: a dismissed one is not offered again at every config refresh. */
  const offeredAudiences = new Set<string>();
  /**
   * Trigger rules whose invite this identity dismissed, by rule and experiment: the next matching event does not
   * bring the same invite back. A changed rule (another launchRuleId or study) offers again.
   */
  const dismissedRules = new Set<string>();
  const ruleKey = (r: { launchRuleId: string; experimentId?: string | null }) => `${r.launchRuleId}/${r.experimentId ?? ""}`;
  /** Mapped event metadata of each invite, sent with its launch (kept off the public snapshot). */
  const eventMetadata = new WeakMap<PendingInvite, Record<string, Primitive>>();
  const shown = new WeakSet<PendingInvite>();
  /** The launch request of the current invite: a double tap on "accept" shares it instead of launching twice. */
  let starting: { invite: PendingInvite; result: Promise<StartResult> } | null = null;

  const funnel = promptFunnel(api, clock, () => referenceId, diagnose, options.storage);
  const postPhase = funnel.post;
  const cache = new ConfigCache({
    api, clock, storage: options.storage, diagnose,
    onLoaded: (config, forUser) => {
      if (forUser === referenceId) offerAudience(config);
    },
  });

  function offerAudience(config: ParticipantConfig): void {
    const s = store.get();
    if (s.pendingInvite || s.activeLaunch) return;
    const match = config.audienceMatches.find((m) => !offeredAudiences.has(`${m.audienceId}/${m.launchRuleId}`));
    if (!match) return;
    offeredAudiences.add(`${match.audienceId}/${match.launchRuleId}`);
    store.set({
      pendingInvite: Object.freeze({
        launchRuleId: match.launchRuleId, experimentId: match.experimentId, audienceId: match.audienceId, prompt: Object.freeze({ ...match.prompt }),
        launchToken: match.launchToken, expiresAt: Date.parse(match.launchTokenExpiresAt),
      }),
    });
  }

  function mapProperties(eventName: string, properties: unknown): Record<string, Primitive> {
    if (!options.mapTrackProperties) return {};
    try {
      return primitivesOnly(options.mapTrackProperties(eventName, properties), dropped);
    } catch (err) {
      diagnose({ type: "mapper_failed", eventName, error: errorText(err) });
      return {};
    }
  }

  /** Matches one event against a fresh config; sets the invite synchronously when a rule matches. */
  function match(config: ParticipantConfig, eventName: string, properties: unknown): void {
    const rule = config.triggerRules.find((r) => r.eventName === eventName);
    if (!rule) return diagnose({ type: "event_ignored", eventName, reason: "no_matching_rule" });
    const s = store.get();
    if (s.pendingInvite) return diagnose({ type: "event_ignored", eventName, reason: "invite_pending" });
    if (s.activeLaunch) return diagnose({ type: "event_ignored", eventName, reason: "launch_active" });
    if (dismissedRules.has(ruleKey(rule))) return diagnose({ type: "event_ignored", eventName, reason: "invite_dismissed" });
    const invite: PendingInvite = Object.freeze({
      launchRuleId: rule.launchRuleId, experimentId: rule.experimentId, prompt: Object.freeze({ ...rule.prompt }), triggerEvent: eventName,
      launchToken: rule.launchToken, expiresAt: Date.parse(rule.launchTokenExpiresAt),
    });
    eventMetadata.set(invite, mapProperties(eventName, properties));
    store.set({ pendingInvite: invite });
  }

  function observe(eventName: unknown, properties: unknown): void {
    if (typeof eventName !== "string" || eventName === "") {
      return diagnose({ type: "event_ignored", eventName: String(eventName), reason: "invalid_event_name" });
    }
    const config = cache.fresh(referenceId);
    if (config) return match(config, eventName, properties);
    // No fresh config: fetch it (once per time-to-live, shared) and match this event when it arrives.
    const gen = generation;
    void cache.ensure(referenceId).then(() => {
      if (gen !== generation) return;
      const loaded = cache.fresh(referenceId);
      if (loaded) match(loaded, eventName, properties);
      else diagnose({ type: "event_ignored", eventName, reason: "config_unavailable" });
    });
  }

  function clearInvite(invite: PendingInvite): void {
    if (store.get().pendingInvite === invite) store.set({ pendingInvite: null });
  }

  /** Origins of the fallback URLs the server has sent: the host lets the web view navigate to them. */
  const fallbackOrigins = new Set<string>();

  /** Opens an external URL through the app's opener, or the platform's; false when there is none or it threw. */
  function openFallback(url: string): boolean {
    const origin = originOf(url);
    if (origin) fallbackOrigins.add(origin);
    const opener = options.openFallbackUrl ?? platformOpener();
    if (!opener) {
      diagnose({ type: "fallback_unavailable", url });
      return false;
    }
    try {
      opener(url);
      diagnose({ type: "fallback_opened", url });
      return true;
    } catch (err) {
      diagnose({ type: "bridge_error", error: `openFallbackUrl threw: ${errorText(err)}` });
      return false;
    }
  }

  function toLaunch(d: LaunchDecision, url: string, source: ActiveLaunch["source"]): ActiveLaunch {
    return Object.freeze({
      url, expiresAt: d.expiresAt ? Date.parse(d.expiresAt) : null, source,
      ...(d.launchRuleId ? { launchRuleId: d.launchRuleId } : {}),
      ...(d.experimentId ? { experimentId: d.experimentId } : {}),
      ...(d.audienceId ? { audienceId: d.audienceId } : {}),
    });
  }

  function launchBody(invite: PendingInvite): LaunchRequest {
    const meta = { ...metadata, ...(eventMetadata.get(invite) ?? {}) };
    let triggerEvent = invite.triggerEvent;
    if (triggerEvent && triggerEvent.length > TRIGGER_EVENT_MAX) {
      diagnose({ type: "trigger_event_dropped", reason: "too_long" });
      triggerEvent = undefined;
    }
    return {
      referenceId, launchToken: invite.launchToken,
      ...(triggerEvent ? { triggerEvent } : {}),
      ...(Object.keys(meta).length ? { metadata: meta } : {}),
    };
  }

  async function start(invite: PendingInvite): Promise<StartResult> {
    postPhase("accepted", invite);
    const gen = generation;
    let decision: LaunchDecision;
    try {
      decision = await api.launch(launchBody(invite));
    } catch (err) {
      if (gen !== generation) {
        diagnose({ type: "launch_discarded", reason: "user_changed" });
        return "none";
      }
      if (err instanceof HttpError && err.status === 410) {
        clearInvite(invite);
        postPhase("expired", invite);
        return "expired";
      }
      diagnose({ type: "launch_failed", error: errorText(err), ...(err instanceof HttpError ? { status: err.status } : {}) });
      // A 4xx answer means this invite can never launch; a network error or a 5xx may pass, so the invite stays.
      if (err instanceof HttpError && err.status < 500) clearInvite(invite);
      return "none";
    }
    if (gen !== generation) {
      diagnose({ type: "launch_discarded", reason: "user_changed" });
      return "none";
    }
    if (store.get().pendingInvite !== invite) {
      // Dismissed (or replaced by an opened link) while the server answered: the user no longer wants this one.
      diagnose({ type: "launch_discarded", reason: "invite_gone" });
      return "none";
    }
    if (decision.mode !== "not_eligible" && !decision.url) {
      diagnose({ type: "launch_failed", error: `launch decision ${decision.mode} without a url` });
      clearInvite(invite);
      return "none";
    }
    if (decision.mode === "webview") {
      store.set({ pendingInvite: null, activeLaunch: toLaunch(decision, decision.url!, "invite") });
      postPhase("launched", invite);
      return "webview";
    }
    clearInvite(invite);
    if (decision.mode === "external_browser") {
      if (!openFallback(decision.url!)) return "none";
      postPhase("fallback_opened", invite);
      return "external_browser";
    }
    postPhase("not_eligible", invite);
    return "not_eligible";
  }

  const client: InterviewClient = {
    setUser(next, nextMetadata) {
      const identity = next ?? null;
      if (identity === referenceId) {
        if (nextMetadata !== undefined) metadata = primitivesOnly(nextMetadata, dropped);
        return;
      }
      // A new person: nothing of the previous one (invite, launch, config, metadata) carries over.
      metadata = nextMetadata !== undefined ? primitivesOnly(nextMetadata, dropped) : defaultMetadata;
      referenceId = identity;
      generation++;
      starting = null;
      offeredAudiences.clear();
      dismissedRules.clear();
      cache.forget();
      store.set({ pendingInvite: null, activeLaunch: null });
      void cache.ensure(referenceId);
    },

    wrapTrackClient: (target) =>
      wrapTrack(
        target,
        (eventName, properties) => client.track(eventName as string, properties),
        () => diagnose({ type: "bridge_error", error: "the analytics client's track is frozen and cannot be wrapped; call client.track after it" }),
      ),

    track(eventName, properties) {
      try {
        observe(eventName, properties);
      } catch (err) {
        diagnose({ type: "track_failed", error: errorText(err) });
      }
    },

    subscribe: store.subscribe,
    getSnapshot: store.get,

    startPendingInvite() {
      const invite = store.get().pendingInvite;
      if (!invite) return Promise.resolve("none");
      if (starting?.invite === invite) return starting.result;
      const result = start(invite)
        .catch((err): StartResult => {
          diagnose({ type: "launch_failed", error: errorText(err) });
          return "none";
        })
        .finally(() => {
          if (starting?.invite === invite) starting = null;
        });
      starting = { invite, result };
      return result;
    },

    dismissPendingInvite() {
      const invite = store.get().pendingInvite;
      if (!invite) return;
      store.set({ pendingInvite: null });
      if (!invite.audienceId) dismissedRules.add(ruleKey(invite));
      postPhase("dismissed", invite);
    },

    async handleLink(url) {
      const code = inviteCodeOf(url, linkHosts);
      if (!code) return { handled: false, reason: "not_interview_link" };
      const gen = generation;
      try {
        const decision = await api.launch({ referenceId, inviteCode: code, ...(Object.keys(metadata).length ? { metadata } : {}) });
        if (gen !== generation) {
          diagnose({ type: "launch_discarded", reason: "user_changed" });
          return { handled: false, reason: "resolve_failed" };
        }
        if (decision.mode !== "not_eligible" && !decision.url) throw new Error(`launch decision ${decision.mode} without a url`);
        // A code the service does not know was not resolved: the link is not the service's to handle.
        if (decision.mode === "not_eligible" && decision.reason === "unknown_invite") {
          diagnose({ type: "launch_failed", error: "unknown invite code" });
          return { handled: false, reason: "resolve_failed" };
        }
        if (decision.mode === "webview") store.set({ pendingInvite: null, activeLaunch: toLaunch(decision, decision.url!, "link") });
        if (decision.mode === "external_browser" && !openFallback(decision.url!)) return { handled: false, reason: "resolve_failed" };
        return { handled: true, mode: decision.mode };
      } catch (err) {
        diagnose({ type: "launch_failed", error: errorText(err), ...(err instanceof HttpError ? { status: err.status } : {}) });
        return { handled: false, reason: "resolve_failed" };
      }
    },

    closeActiveLaunch() {
      store.set({ activeLaunch: null });
    },

    reportPromptShown() {
      const invite = store.get().pendingInvite;
      if (!invite || shown.has(invite)) return;
      shown.add(invite);
      postPhase("shown", invite);
    },

    ready: () => cache.idle(),
    diagnose,
    fallbackOrigins: () => [...fallbackOrigins],
    flush: () => funnel.flush(),
    pendingEvents: () => funnel.pending(),
  };

  // Load eagerly: the first matching event is then matched synchronously, and audience matches appear on their own.
  void cache.ensure(referenceId);
  return client;
}
