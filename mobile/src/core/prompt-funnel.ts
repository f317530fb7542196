/**
 * Prompt funnel phases posted to `prompt-events` through a durable queue, as analytics SDKs do (PostHog, Braze):
 * - Every phase is queued first: persisted in `storage` when there is one, so it survives a restart.
 * - The queue is sent in order, one request at a time. Each event keeps its `eventId`, so a resend after a lost
 *   answer is de-duplicated by the server.
 * - A network error, 408, 429 or 5xx stops the flush. It is retried with backoff (2 s, doubling, at most 5 min,
 *   by the injected clock), at the next phase, at `flush()`, and when the app goes to the background (the hosts
 *   call `flush()`).
 * - A 401 or 403 (a wrong or revoked key) keeps the queue: it is reported through `onError` and retried with the
 *   same backoff, never dropped. Any other 4xx drops that one event, which can never succeed, with a diagnostic.
 * - Opted out, nothing is queued, and `discard()` drops what was (in memory and in storage).
 * - The queue is bounded at QUEUE_MAX events. On overflow the oldest is dropped, with a diagnostic.
 *
 * Analytics never delay or break the prompt: posting returns at once, and failures are only diagnostics.
 */
import { HttpError, type ParticipantApi, type PromptEventInput } from "./api.ts";
import { removeKey } from "./storage.ts";
import type { Clock, Diagnostic, KeyValueStorage, PendingInvite, PromptPhase } from "./types.ts";

export const QUEUE_MAX = 100;
const BACKOFF_BASE_MS = 2_000;
const BACKOFF_MAX_MS = 5 * 60_000;

/** crypto.randomUUID where the platform has it (Node, browsers); React Native without a polyfill does not. */
function uuid(): string {
  // Typed locally: React Native's global types declare no `crypto`.
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (typeof crypto?.randomUUID === "function") return crypto.randomUUID();
  const hex = Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16));
  hex[12] = "4";
  hex[16] = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
/** Refusals of the key: the event is fine, the app must fix its key; the queue waits for it. */
export const refusedKey = (err: unknown): err is HttpError => err instanceof HttpError && (err.status === 401 || err.status === 403);
const retryable = (err: unknown) => !(err instanceof HttpError) || err.status >= 500 || err.status === 408 || err.status === 429 || refusedKey(err);

export interface PromptFunnel {
  post(phase: PromptPhase, invite: PendingInvite): void;
  /** Sends what is queued now, backoff or not (the app going to the background); resolves when the attempt ends. */
  flush(): Promise<void>;
  /** Resolves once the stored queue has been read and no send is in progress. */
  idle(): Promise<void>;
  /** Events waiting to be sent. */
  pending(): number;
  /** Drops every queued event, in memory and in storage (opting out). */
  discard(): void;
  /** Stops the retry timer; nothing is sent afterwards. */
  dispose(): void;
}

export interface FunnelDeps {
  api: ParticipantApi;
  clock: Clock;
  referenceId(): string | null;
  diagnose(d: Diagnostic): void;
  /** A 401 or 403 from the service. */
  refused(err: HttpError): void;
  /** False while opted out: nothing is queued or sent. */
  enabled(): boolean;
  storage?: KeyValueStorage;
  /** The storage key of this server and public key (storage.ts). */
  key: string;
  /** Resolves once the stored opt-out has been read: nothing is sent before. */
  gate: Promise<unknown>;
}

export function promptFunnel({ api, clock, referenceId, diagnose, refused, enabled, storage, key: QUEUE_KEY, gate }: FunnelDeps): PromptFunnel {
  let queue: PromptEventInput[] = [];
  let failures = 0;
  let retryAt = 0;
  let sending: Promise<void> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let disposed = false;

  // Writes in order, one after another, each of the queue as it is then, and never before the stored queue has been
  // read: a phase posted during start-up must not overwrite what the last run left.
  let writes: Promise<void> = Promise.resolve();
  let restoring: Promise<void> = Promise.resolve();
  const write = (op: (storage: KeyValueStorage) => Promise<void> | void) => {
    if (!storage) return;
    writes = writes
      .then(() => restoring)
      .then(() => op(storage))
      .catch((err) => diagnose({ type: "storage_failed", error: errorText(err) }));
  };
  const persist = () => {
    // Opted out, nothing is stored (a send that was in flight when the user opted out included).
    if (enabled()) write((s) => s.setItem(QUEUE_KEY, JSON.stringify(queue)));
  };
  const stopTimer = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };

  const add = (events: PromptEventInput[]) => {
    queue.push(...events);
    while (queue.length > QUEUE_MAX) {
      const dropped = queue.shift()!;
      diagnose({ type: "prompt_event_dropped", phase: dropped.phase, reason: "queue_full" });
    }
  };

  // Events queued by an earlier run of the app come first.
  restoring = (async () => {
    await gate;
    if (!storage) return;
    try {
      const raw = await storage.getItem(QUEUE_KEY);
      if (!raw || !enabled()) return;
      const saved = JSON.parse(raw) as unknown;
      if (!Array.isArray(saved) || !saved.every((e) => e && typeof e === "object" && typeof (e as PromptEventInput).eventId === "string")) throw new Error("stored prompt events have an unexpected shape");
      const fresh = queue;
      queue = [];
      add([...(saved as PromptEventInput[]), ...fresh]);
    } catch (err) {
      diagnose({ type: "storage_failed", error: errorText(err) });
    }
  })();

  const schedule = () => {
    if (timer !== null || disposed) return;
    // A timer as well as the next phase and the background: a quiet app still sends what it queued.
    // The timer is the backoff: when it fires, it sends. Unreferenced where timers can be (Node, Jest), so a
    // queue waiting for a service that stays down never keeps a process alive.
    timer = setTimeout(() => {
      timer = null;
      void send(true);
    }, Math.max(0, retryAt - clock.now()));
    (timer as unknown as { unref?: () => void }).unref?.();
  };

  async function drain(): Promise<void> {
    while (queue.length && !disposed && enabled()) {
      const event = queue[0];
      try {
        await api.promptEvent(event);
      } catch (err) {
        if (refusedKey(err)) refused(err);
        if (retryable(err)) {
          failures++;
          const retryInMs = Math.min(BACKOFF_BASE_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);
          retryAt = clock.now() + retryInMs;
          diagnose({ type: "prompt_event_failed", phase: event.phase, error: errorText(err), retryInMs });
          schedule();
          return;
        }
        diagnose({ type: "prompt_event_dropped", phase: event.phase, reason: `refused: ${errorText(err)}` });
      }
      if (queue[0] === event) queue.shift();
      failures = 0;
      retryAt = 0;
      persist();
    }
  }

  function send(force: boolean): Promise<void> {
    if (sending) return sending;
    sending = restoring
      .then(() => (force || clock.now() >= retryAt ? drain() : schedule()))
      .finally(() => {
        sending = null;
      });
    return sending;
  }

  // What an earlier run left queued goes out as soon as it has been read.
  void restoring.then(() => (queue.length ? send(false) : undefined));

  return {
    post(phase, invite) {
      if (!enabled() || disposed) return;
      add([{
        eventId: uuid(),
        phase,
        referenceId: referenceId(),
        occurredAt: new Date(clock.now()).toISOString(),
        launchRuleId: invite.launchRuleId,
        experimentId: invite.experimentId,
        ...(invite.audienceId ? { audienceId: invite.audienceId } : {}),
      }]);
      persist();
      void send(false);
    },
    flush: () => send(true),
    async idle() {
      await restoring;
      while (sending) await sending;
      await writes;
    },
    pending: () => queue.length,
    discard() {
      queue = [];
      failures = 0;
      retryAt = 0;
      stopTimer();
      write((s) => removeKey(s, QUEUE_KEY));
    },
    dispose() {
      disposed = true;
      stopTimer();
    },
  };
}
