/**
 * createInterviewClient: the behaviour of the seed's mobile client library, framework-agnostic.
 *
 * - The trigger config is fetched once per server time-to-live and shared by concurrent callers; events are
 *   matched against it locally, so unrelated events cost no network call and a matching one sets the pending
 *   invite at once, synchronously.
 * - Eligibility is the server's: accepting an invite asks it, and it answers webview, external_browser or
 *   not_eligible; a signed launch past its expiry resolves `expired` without asking.
 * - A new identity (setUser) clears the invite and the launch, refetches the config, and discards any launch
 *   still in flight for the previous user.
 * - Nothing here throws into the app: failures go to onDiagnostic (and an onDiagnostic that throws is ignored).
 */
import { HttpError, ParticipantApi, type ParticipantConfig } from "./api.ts";
import { inviteCodeOf } from "./links.ts";
import { primitivesOnly } from "./primitives.ts";
import type { ActiveLaunch, Diagnostic, InterviewClientOptions, LinkResult, PendingInvite, Primitive, Snapshot, StartResult } from "./types.ts";

type Phase = "shown" | "accepted" | "dismissed" | "launched" | "fallback_opened" | "not_eligible" | "expired";

interface CachedConfig {
  referenceId: string | null;
  config: ParticipantConfig;
  expiresAt: number;
}

const STORAGE_KEY = "interviews.participant-config";

export interface InterviewClient {
  setUser(referenceId: string | null, metadata?: Record<string, Primitive>): void;
  wrapTrackClient<T extends { track: (...args: any[]) => any }>(client: T): T;
  track(eventName: string, properties?: unknown): void;
  subscribe(listener: () => void): () => void;
  getSnapshot(): Snapshot;
  startPendingInvite(): Promise<StartResult>;
  dismissPendingInvite(): void;
  handleLink(url: string): Promise<LinkResult>;
  /** The host closed the in-app interview. */
  closeActiveLaunch(): void;
  /** The host showed the built-in prompt (a funnel phase). */
  reportPromptShown(): void;
  /** Resolves when the current config load (if any) has settled; for hosts and tests. */
  ready(): Promise<void>;
  /** Reports a diagnostic through the client (used by the React host). */
  diagnose(event: Diagnostic): void;
}

export function createInterviewClient(options: InterviewClientOptions): InterviewClient {
  const clock = options.clock ?? { now: () => Date.now() };
  const api = new ParticipantApi(options.baseUrl, options.publicKey, options.fetch ?? globalThis.fetch);
  let referenceId: string | null = options.referenceId ?? null;
  let metadata: Record<string, Primitive> = { ...(options.metadata ?? {}) };
  let snapshot: Snapshot = { pendingInvite: null, activeLaunch: null };
  let cached: CachedConfig | null = null;
  let loading: Promise<void> | null = null;
  /** Bumped by every identity change: work started for an older identity is discarded. */
  let generation = 0;
  const listeners = new Set<() => void>();

  const diagnose = (event: Diagnostic) => {
    try {
      options.onDiagnostic?.(event);
    } catch {
      // A diagnostics handler must never break the app either.
    }
  };
  const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

  function setSnapshot(next: Partial<Snapshot>): void {
    const merged = { ...snapshot, ...next };
    if (merged.pendingInvite === snapshot.pendingInvite && merged.activeLaunch === snapshot.activeLaunch) return;
    snapshot = merged;
    for (const l of [...listeners]) {
      try {
        l();
      } catch (err) {
        diagnose({ type: "bridge_error", error: errorText(err) });
      }
    }
  }

  function postPhase(phase: Phase, invite: Pick<PendingInvite, "launchRuleId" | "experimentId" | "audienceId"> | null): void {
    const body = {
      eventId: globalThis.crypto.randomUUID(),
      phase,
      referenceId,
      occurredAt: new Date(clock.now()).toISOString(),
      ...(invite?.launchRuleId ? { launchRuleId: invite.launchRuleId } : {}),
      ...(invite?.experimentId ? { experimentId: invite.experimentId } : {}),
      ...(invite?.audienceId ? { audienceId: invite.audienceId } : {}),
    };
    api.promptEvent(body).catch((err) => diagnose({ type: "prompt_event_failed", phase, error: errorText(err) }));
  }

  const fresh = () => cached !== null && cached.referenceId === referenceId && clock.now() < cached.expiresAt;

  function applyAudiences(): void {
    if (!cached || snapshot.pendingInvite || snapshot.activeLaunch) return;
    const match = cached.config.audienceMatches[0];
    if (!match) return;
    setSnapshot({
      pendingInvite: {
        launchRuleId: match.launchRuleId, experimentId: match.experimentId, audienceId: match.audienceId, prompt: match.prompt,
        launchToken: match.launchToken, expiresAt: Date.parse(match.launchTokenExpiresAt),
      },
    });
  }

  function loadConfig(): Promise<void> {
    if (fresh()) return Promise.resolve();
    if (loading) return loading;
    const gen = generation;
    const forUser = referenceId;
    loading = api
      .config(forUser)
      .then((config) => {
        if (gen !== generation) return;
        cached = { referenceId: forUser, config, expiresAt: clock.now() + config.ttlSeconds * 1000 };
        diagnose({ type: "config_loaded", rules: config.triggerRules.length, audienceMatches: config.audienceMatches.length, ttlSeconds: config.ttlSeconds });
        persist();
        applyAudiences();
      })
      .catch((err) => diagnose({ type: "config_failed", error: errorText(err) }))
      .finally(() => {
        if (gen === generation) loading = null;
      });
    return loading;
  }

  function persist(): void {
    if (!options.storage || !cached) return;
    Promise.resolve(options.storage.setItem(STORAGE_KEY, JSON.stringify(cached))).catch((err) => diagnose({ type: "storage_failed", error: errorText(err) }));
  }

  async function restore(): Promise<void> {
    if (!options.storage) return;
    try {
      const raw = await options.storage.getItem(STORAGE_KEY);
      const saved = raw ? (JSON.parse(raw) as CachedConfig) : null;
      if (saved && saved.referenceId === referenceId && clock.now() < saved.expiresAt && !cached) {
        cached = saved;
        applyAudiences();
      }
    } catch (err) {
      diagnose({ type: "storage_failed", error: errorText(err) });
    }
  }

  /** Matches one event against the cached rules; sets the invite synchronously when one matches. */
  function observe(eventName: string, properties: unknown): void {
    if (!fresh()) {
      // Stale or missing config: fetch it (once per TTL) and match this event when it arrives.
      const gen = generation;
      void loadConfig().then(() => {
        if (gen === generation && fresh()) observe(eventName, properties);
      });
      return;
    }
    const rule = cached!.config.triggerRules.find((r) => r.eventName === eventName);
    if (!rule) return diagnose({ type: "event_ignored", eventName, reason: "no_matching_rule" });
    if (snapshot.pendingInvite) return diagnose({ type: "event_ignored", eventName, reason: "invite_pending" });
    if (snapshot.activeLaunch) return diagnose({ type: "event_ignored", eventName, reason: "launch_active" });
    const mapped = options.mapTrackProperties ? options.mapTrackProperties(eventName, properties) : undefined;
    const eventMetadata = primitivesOnly(mapped, (key, reason) => diagnose({ type: "metadata_dropped", key, reason }));
    metadataByRule.set(rule.launchRuleId, eventMetadata);
    setSnapshot({
      pendingInvite: {
        launchRuleId: rule.launchRuleId, experimentId: rule.experimentId, prompt: rule.prompt, triggerEvent: eventName,
        launchToken: rule.launchToken, expiresAt: Date.parse(rule.launchTokenExpiresAt),
      },
    });
  }
  const metadataByRule = new Map<string, Record<string, Primitive>>();

  function openFallback(url: string): void {
    try {
      if (options.openFallbackUrl) options.openFallbackUrl(url);
      diagnose({ type: "fallback_opened", url });
    } catch (err) {
      diagnose({ type: "bridge_error", error: errorText(err) });
    }
  }

  function toLaunch(d: { url: string | null; expiresAt: string | null; launchRuleId?: string; experimentId?: string; audienceId?: string }, source: ActiveLaunch["source"]): ActiveLaunch {
    return { url: d.url!, expiresAt: d.expiresAt ? Date.parse(d.expiresAt) : null, launchRuleId: d.launchRuleId, experimentId: d.experimentId, audienceId: d.audienceId, source };
  }

  const client: InterviewClient = {
    setUser(next, nextMetadata) {
      if (nextMetadata) metadata = primitivesOnly(nextMetadata, (key, reason) => diagnose({ type: "metadata_dropped", key, reason }));
      if (next === referenceId) return;
      referenceId = next;
      generation++;
      loading = null;
      cached = null;
      setSnapshot({ pendingInvite: null, activeLaunch: null });
      void loadConfig();
    },

    wrapTrackClient(target) {
      return new Proxy(target, {
        get(t, prop, receiver) {
          const value = Reflect.get(t, prop, receiver);
          if (prop !== "track" || typeof value !== "function") return typeof value === "function" ? value.bind(t) : value;
          return function wrappedTrack(this: unknown, ...args: any[]) {
            // The app's own track runs first and its outcome (value, promise or throw) is the caller's, untouched.
            let result: unknown;
            try {
              result = value.apply(this === receiver || this === undefined ? t : this, args);
            } catch (err) {
              client.track(String(args[0]), args[1]);
              throw err;
            }
            client.track(String(args[0]), args[1]);
            return result;
          };
        },
      });
    },

    track(eventName, properties) {
      try {
        observe(eventName, properties);
      } catch (err) {
        diagnose({ type: "track_failed", error: errorText(err) });
      }
    },

    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    getSnapshot: () => snapshot,

    async startPendingInvite() {
      const invite = snapshot.pendingInvite;
      if (!invite) return "none";
      postPhase("accepted", invite);
      if (clock.now() >= invite.expiresAt) {
        setSnapshot({ pendingInvite: null });
        postPhase("expired", invite);
        return "expired";
      }
      const gen = generation;
      try {
        const decision = await api.launch({
          referenceId,
          launchToken: invite.launchToken,
          ...(invite.triggerEvent ? { triggerEvent: invite.triggerEvent } : {}),
          metadata: { ...metadata, ...(metadataByRule.get(invite.launchRuleId) ?? {}) },
        });
        if (gen !== generation) {
          diagnose({ type: "launch_discarded", reason: "user_changed" });
          return "none";
        }
        if (snapshot.pendingInvite === invite) setSnapshot({ pendingInvite: null });
        if (decision.mode === "webview") {
          setSnapshot({ activeLaunch: toLaunch(decision, "invite") });
          postPhase("launched", invite);
          return "webview";
        }
        if (decision.mode === "external_browser") {
          openFallback(decision.url!);
          postPhase("fallback_opened", invite);
          return "external_browser";
        }
        postPhase("not_eligible", invite);
        return "not_eligible";
      } catch (err) {
        if (gen !== generation) return "none";
        if (err instanceof HttpError && err.status === 410) {
          setSnapshot({ pendingInvite: null });
          postPhase("expired", invite);
          return "expired";
        }
        diagnose({ type: "launch_failed", error: errorText(err) });
        return "none";
      }
    },

    dismissPendingInvite() {
      const invite = snapshot.pendingInvite;
      if (!invite) return;
      setSnapshot({ pendingInvite: null });
      postPhase("dismissed", invite);
    },

    async handleLink(url) {
      const code = inviteCodeOf(url);
      if (!code) return { handled: false, reason: "not_interview_link" };
      const gen = generation;
      try {
        const decision = await api.launch({ referenceId, inviteCode: code, metadata });
        if (gen !== generation) {
          diagnose({ type: "launch_discarded", reason: "user_changed" });
          return { handled: false, reason: "resolve_failed" };
        }
        if (decision.mode === "webview") setSnapshot({ pendingInvite: null, activeLaunch: toLaunch(decision, "link") });
        if (decision.mode === "external_browser") openFallback(decision.url!);
        return { handled: true, mode: decision.mode };
      } catch (err) {
        diagnose({ type: "launch_failed", error: errorText(err) });
        return { handled: false, reason: "resolve_failed" };
      }
    },

    closeActiveLaunch() {
      setSnapshot({ activeLaunch: null });
    },

    reportPromptShown() {
      if (snapshot.pendingInvite) postPhase("shown", snapshot.pendingInvite);
    },

    async ready() {
      await initial;
      while (loading) await loading;
    },

    diagnose,
  };

  const initial = restore().then(() => loadConfig());
  return client;
}
