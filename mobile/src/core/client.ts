/**
 * createInterviewClient: the behaviour of the seed's mobile client library, framework-agnostic. Wiring only:
 * - machine.ts decides: one pure transition function over the seed's invite lifecycle, (state, event) -> (state,
 *   effects);
 * - the effects run in their own modules: config-cache.ts (the config fetch and its cache), launch.ts (the launch
 *   request), opener.ts (opening a URL outside the app), prompt-funnel.ts (the durable queue of prompt events),
 *   storage.ts (keys per server and public key);
 * - their outcomes come back as events. The snapshot store notifies subscribers when the machine's invite or launch
 *   changed.
 * Expiry and eligibility are the server's; nothing here throws into the app: failures go to onDiagnostic (and
 * refusals of the key to onError), and a handler that throws is ignored.
 */
import { HttpError, ParticipantApi } from "./api.ts";
import { ConfigCache } from "./config-cache.ts";
import { launchRequest } from "./launch.ts";
import { httpsParts, inviteCodeOf, originOf } from "./links.ts";
import { initialState, transition, type Effect, type MachineEvent, type MachineState, type Ticket } from "./machine.ts";
import { openExternal, platformOpener } from "./opener.ts";
import { primitivesOnly } from "./primitives.ts";
import { promptFunnel, refusedKey } from "./prompt-funnel.ts";
import { SnapshotStore } from "./snapshot-store.ts";
import { removeKey, storageKeys } from "./storage.ts";
import { wrapTrack, type TrackClient } from "./track-proxy.ts";
import type { Diagnostic, InterviewClientOptions, InterviewError, LinkResult, PendingInvite, Primitive, Snapshot, StartResult } from "./types.ts";

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
  /**
   * The user declined: from now on nothing is sent or stored (the choice itself excepted, in `storage`, so it
   * holds across restarts). The pending invite and the queued prompt events are dropped; events are ignored.
   */
  optOut(): void;
  /** Undoes optOut(): events are matched and prompt events sent again. */
  optIn(): void;
  isOptedOut(): boolean;
  /** Logout: forgets the user, the pending invite, the active launch and the cached config (in storage too). Queued prompt events still go out. */
  reset(): void;
  /** Releases timers and listeners (the app-state or page-visibility listener of the entries); the client does nothing afterwards. */
  dispose(): void;
}

/**
 * For the platform entries: `release` (a listener they added) runs when the app disposes the client, before the
 * client's own release.
 */
export function releaseOnDispose(client: InterviewClient, release: () => void): void {
  const dispose = client.dispose;
  client.dispose = () => {
    release();
    dispose();
  };
}

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
  const refused = (err: HttpError, operation: InterviewError["operation"]) => {
    try {
      options.onError?.({ type: err.status === 401 ? "unauthorized" : "forbidden", status: err.status as 401 | 403, operation, message: err.message });
    } catch {
      // Nor an error handler.
    }
  };
  const dropped = (key: string, reason: string) => diagnose({ type: "metadata_dropped", key, reason });
  const api = new ParticipantApi(options.baseUrl, options.publicKey, options.fetch ?? ((url, init) => globalThis.fetch(url, init)));
  const store = new SnapshotStore((err) => diagnose({ type: "bridge_error", error: `snapshot listener threw: ${errorText(err)}` }));
  const keys = storageKeys(options.baseUrl, options.publicKey);
  const storage = options.storage;

  // The service's link host by default: the host of baseUrl (http too, for a sandbox on loopback).
  const linkHosts = options.linkHosts ?? [httpsParts(options.baseUrl.replace(/^http:/i, "https:"))?.host ?? ""].filter(Boolean);
  const defaultMetadata = primitivesOnly(options.metadata, dropped);
  let metadata = defaultMetadata;
  let state: MachineState = initialState(options.referenceId ?? null, options.optedOut ?? false);
  let disposed = false;
  /** Mapped event metadata of each invite, sent with its launch (kept off the public snapshot). */
  const eventMetadata = new WeakMap<PendingInvite, Record<string, Primitive>>();
  /** Origins of the fallback URLs the server has sent: the host lets the web view navigate to them. */
  const fallbackOrigins = new Set<string>();
  /** The launch request of the current invite: a double tap on "accept" shares it instead of launching twice. */
  let starting: { invite: PendingInvite; result: Promise<StartResult> } | null = null;
  let tickets = 0;
  /** Answers still awaited, by ticket, with what each gets if the client is disposed first. */
  const waiting = new Map<Ticket, { resolve(result: any): void; otherwise: StartResult | LinkResult }>();

  // The stored opt-out is read before anything is fetched or sent (an explicit `optedOut` option wins).
  const gate: Promise<void> = (async () => {
    if (!storage || options.optedOut !== undefined) return;
    try {
      const raw = await storage.getItem(keys.optOut);
      if (raw === "true" && !state.optedOut) state = { ...state, optedOut: true };
    } catch (err) {
      diagnose({ type: "storage_failed", error: errorText(err) });
    }
  })();
  const enabled = () => !state.optedOut && !disposed;

  const funnel = promptFunnel({ api, clock, referenceId: () => state.referenceId, diagnose, refused: (err) => refused(err, "prompt_event"), enabled, storage, key: keys.queue, gate });
  const cache = new ConfigCache({
    api, clock, storage, diagnose, key: keys.config, gate, enabled,
    refused: (err) => refused(err, "config"),
    onLoaded: (config, forUser) => dispatch({ type: "config_loaded", config, referenceId: forUser }),
  });

  /** Runs one event through the machine, publishes the snapshot, then carries out the effects. */
  function dispatch(event: MachineEvent): void {
    if (disposed) return;
    const next = transition(state, event);
    state = next.state;
    store.set({ pendingInvite: state.pendingInvite, activeLaunch: state.activeLaunch });
    for (const effect of next.effects) run(effect);
  }

  function run(effect: Effect): void {
    switch (effect.type) {
      case "diagnose":
        return diagnose(effect.event);
      case "map_properties":
        if (options.mapTrackProperties) {
          try {
            eventMetadata.set(effect.invite, primitivesOnly(options.mapTrackProperties(effect.eventName, effect.properties), dropped));
          } catch (err) {
            diagnose({ type: "mapper_failed", eventName: effect.eventName, error: errorText(err) });
          }
        }
        return;
      case "fetch_config":
        return void cache.ensure(state.referenceId);
      case "forget_config":
        return cache.forget(effect.stored);
      case "launch":
        return void launch(effect.ticket, effect.invite, effect.generation);
      case "open_fallback": {
        const origin = originOf(effect.url);
        if (origin) fallbackOrigins.add(origin);
        void openExternal(options.openFallbackUrl ?? platformOpener(), effect.url, diagnose).then((opened) => dispatch({ type: "fallback_result", ticket: effect.ticket, opened, invite: effect.invite }));
        return;
      }
      case "post_phase":
        return funnel.post(effect.phase, effect.invite);
      case "discard_queue":
        return funnel.discard();
      case "store_opt_out":
        if (storage) {
          Promise.resolve()
            .then(() => (effect.optedOut ? storage.setItem(keys.optOut, "true") : removeKey(storage, keys.optOut)))
            .catch((err) => diagnose({ type: "storage_failed", error: errorText(err) }));
        }
        return;
      case "resolve_start":
      case "resolve_link": {
        const wait = waiting.get(effect.ticket);
        waiting.delete(effect.ticket);
        return wait?.resolve(effect.result);
      }
    }
  }

  /** A request whose answer comes back through the machine as a resolve effect with the same ticket. */
  function ask<T extends StartResult | LinkResult>(otherwise: T, send: (ticket: Ticket) => void): Promise<T> {
    const ticket = ++tickets;
    const answered = new Promise<T>((resolve) => waiting.set(ticket, { resolve, otherwise }));
    send(ticket);
    return answered;
  }

  async function launch(ticket: Ticket, invite: PendingInvite, generation: number): Promise<void> {
    try {
      const decision = await api.launch(launchRequest(invite, state.referenceId, metadata, eventMetadata.get(invite), diagnose));
      dispatch({ type: "launch_answered", ticket, invite, generation, decision });
    } catch (err) {
      if (refusedKey(err)) refused(err, "launch");
      dispatch({ type: "launch_failed", ticket, invite, generation, error: errorText(err), ...(err instanceof HttpError ? { status: err.status } : {}) });
    }
  }

  function observe(eventName: unknown, properties: unknown): void {
    if (typeof eventName !== "string" || eventName === "") {
      return diagnose({ type: "event_ignored", eventName: String(eventName), reason: "invalid_event_name" });
    }
    if (!enabled()) return;
    const config = cache.fresh(state.referenceId);
    if (config) return dispatch({ type: "tracked", eventName, properties, config });
    // No fresh config: fetch it (once per time-to-live, shared) and judge this event by the config that arrives.
    const generation = state.generation;
    void cache.ensure(state.referenceId).then((loaded) => {
      if (generation === state.generation) dispatch({ type: "tracked", eventName, properties, config: loaded });
    });
  }

  const client: InterviewClient = {
    setUser(next, nextMetadata) {
      const identity = next ?? null;
      if (identity === state.referenceId) {
        if (nextMetadata !== undefined) metadata = primitivesOnly(nextMetadata, dropped);
        return;
      }
      // A new person: nothing of the previous one (invite, launch, config, metadata) carries over.
      metadata = nextMetadata !== undefined ? primitivesOnly(nextMetadata, dropped) : defaultMetadata;
      starting = null;
      dispatch({ type: "set_user", referenceId: identity });
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
      const invite = state.pendingInvite;
      if (!invite || disposed) return Promise.resolve("none");
      if (starting?.invite === invite) return starting.result;
      const result = ask<StartResult>("none", (ticket) => dispatch({ type: "accept", ticket })).finally(() => {
        if (starting?.invite === invite) starting = null;
      });
      starting = { invite, result };
      return result;
    },

    dismissPendingInvite: () => dispatch({ type: "dismiss" }),

    async handleLink(url) {
      const code = inviteCodeOf(url, linkHosts);
      if (!code) return { handled: false, reason: "not_interview_link" };
      if (!enabled()) return { handled: false, reason: "resolve_failed" };
      const generation = state.generation;
      return ask<LinkResult>({ handled: false, reason: "resolve_failed" }, (ticket) => {
        api.launch({ referenceId: state.referenceId, inviteCode: code, ...(Object.keys(metadata).length ? { metadata } : {}) }).then(
          (decision) => dispatch({ type: "link_answered", ticket, generation, decision }),
          (err) => {
            if (refusedKey(err)) refused(err, "link");
            dispatch({ type: "link_failed", ticket, error: errorText(err), ...(err instanceof HttpError ? { status: err.status } : {}) });
          },
        );
      });
    },

    closeActiveLaunch: () => dispatch({ type: "close_launch" }),
    reportPromptShown: () => dispatch({ type: "prompt_shown" }),
    ready: async () => {
      await gate;
      await cache.idle();
    },
    diagnose,
    fallbackOrigins: () => [...fallbackOrigins],
    flush: () => funnel.flush(),
    pendingEvents: () => funnel.pending(),

    optOut: () => dispatch({ type: "opt_out" }),
    optIn: () => dispatch({ type: "opt_in" }),
    isOptedOut: () => state.optedOut,
    reset() {
      metadata = defaultMetadata;
      starting = null;
      dispatch({ type: "reset" });
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      funnel.dispose();
      // Whoever still waits on an answer gets the seed's "nothing happened".
      for (const wait of waiting.values()) wait.resolve(wait.otherwise);
      waiting.clear();
    },
  };

  // Load eagerly (after the stored opt-out is read): the first matching event is then matched synchronously, and
  // audience matches appear on their own.
  void cache.ensure(state.referenceId);
  return client;
}
