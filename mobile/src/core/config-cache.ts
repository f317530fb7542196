/**
 * The trigger config of one referenceId, fetched once per server time-to-live and shared by concurrent callers.
 *
 * - A failed fetch backs off (5 s, doubling, at most 5 min, by the injected clock): with the service down, a busy
 *   app would otherwise pay one request per analytics event, which is what the cache exists to prevent.
 * - The server's time-to-live is honoured as given, 0 included: then nothing is cached, every event asks (events
 *   arriving while a request is in flight share it), and each is judged by the config fetched for it. It is the
 *   server's lever over how stale a device's rules may be, never a switch that turns invites off.
 * - With `storage`, the entry survives restarts; nothing is fetched until the stored entry has been read, so a
 *   restart within the time-to-live costs no request.
 */
import type { ParticipantApi, ParticipantConfig } from "./api.ts";
import { refusedKey } from "./prompt-funnel.ts";
import { removeKey } from "./storage.ts";
import type { HttpError } from "./api.ts";
import type { Clock, Diagnostic, KeyValueStorage } from "./types.ts";
const BACKOFF_BASE_MS = 5_000;
const BACKOFF_MAX_MS = 5 * 60_000;

interface Entry {
  referenceId: string | null;
  config: ParticipantConfig;
  /** By the client's clock. */
  expiresAt: number;
}

export interface ConfigCacheDeps {
  api: ParticipantApi;
  clock: Clock;
  storage?: KeyValueStorage;
  diagnose(event: Diagnostic): void;
  /** A config became current for `referenceId` (from the network or from storage). */
  onLoaded(config: ParticipantConfig, referenceId: string | null): void;
  /** A 401 or 403 from the service. */
  refused(err: HttpError): void;
  /** False while opted out: nothing is fetched. */
  enabled(): boolean;
  /** The storage key of this server and public key (storage.ts). */
  key: string;
  /** Resolves once the stored opt-out has been read: nothing is fetched before. */
  gate: Promise<unknown>;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class ConfigCache {
  private entry: Entry | null = null;
  private inFlight: { referenceId: string | null; promise: Promise<ParticipantConfig | null> } | null = null;
  private failures = 0;
  private retryAt = 0;
  /** Bumped by forget(): answers to requests made before it are dropped. */
  private epoch = 0;
  private readonly restoring: Promise<void>;

  constructor(private readonly deps: ConfigCacheDeps) {
    this.restoring = this.restore();
  }

  /** The cached config when it belongs to `referenceId` and is within its time-to-live; otherwise null. */
  fresh(referenceId: string | null): ParticipantConfig | null {
    const e = this.entry;
    return e && e.referenceId === referenceId && this.deps.clock.now() < e.expiresAt ? e.config : null;
  }

  /**
   * Makes the config of `referenceId` fresh if it can: at most one request in flight, none while backing off.
   * Resolves with the config the caller may judge its event by: the fresh one, or the one this fetch brought even
   * when its time-to-live is 0 ("do not cache" is not "never invite"); null when there is none.
   */
  ensure(referenceId: string | null): Promise<ParticipantConfig | null> {
    const fresh = this.fresh(referenceId);
    if (fresh) return Promise.resolve(fresh);
    if (this.inFlight && this.inFlight.referenceId === referenceId) return this.inFlight.promise;
    const epoch = this.epoch;
    const promise = this.restoring
      .then((): ParticipantConfig | null | Promise<ParticipantConfig | null> => {
        if (epoch !== this.epoch || !this.deps.enabled()) return null;
        const restored = this.fresh(referenceId);
        if (restored || this.deps.clock.now() < this.retryAt) return restored;
        return this.deps.api.config(referenceId).then(
          (config) => (this.loaded(epoch, referenceId, config) ? config : null),
          (err) => (this.failed(epoch, err), null),
        );
      })
      .finally(() => {
        if (this.inFlight?.promise === promise) this.inFlight = null;
      });
    this.inFlight = { referenceId, promise };
    return promise;
  }

  /** Resolves once the stored entry has been read and no fetch is in flight. */
  async idle(): Promise<void> {
    await this.restoring;
    while (this.inFlight) await this.inFlight.promise;
  }

  /** A new identity: drop the entry, the request in flight and the backoff; `stored`: the stored copy too (reset, opt-out). */
  forget(stored = false): void {
    this.epoch++;
    this.entry = null;
    this.inFlight = null;
    this.failures = 0;
    this.retryAt = 0;
    const storage = this.deps.storage;
    if (!stored || !storage) return;
    this.restoring
      .then(() => removeKey(storage, this.deps.key))
      .catch((err) => this.deps.diagnose({ type: "storage_failed", error: errorText(err) }));
  }

  /** Keeps a fetched config; false when an identity change made it stale on the way. */
  private loaded(epoch: number, referenceId: string | null, config: ParticipantConfig): boolean {
    if (epoch !== this.epoch) return false;
    this.failures = 0;
    this.retryAt = 0;
    this.entry = { referenceId, config, expiresAt: this.deps.clock.now() + config.ttlSeconds * 1000 };
    this.report("network", config);
    this.persist(this.entry);
    this.deps.onLoaded(config, referenceId);
    return true;
  }

  private failed(epoch: number, err: unknown): void {
    if (epoch !== this.epoch) return;
    if (refusedKey(err)) this.deps.refused(err);
    this.failures++;
    const retryInMs = Math.min(BACKOFF_BASE_MS * 2 ** (this.failures - 1), BACKOFF_MAX_MS);
    this.retryAt = this.deps.clock.now() + retryInMs;
    this.deps.diagnose({ type: "config_failed", error: errorText(err), retryInMs });
  }

  private report(source: "network" | "storage", config: ParticipantConfig): void {
    this.deps.diagnose({
      type: "config_loaded", source, rules: config.triggerRules.length, audienceMatches: config.audienceMatches.length, ttlSeconds: config.ttlSeconds,
    });
  }

  private persist(entry: Entry): void {
    const storage = this.deps.storage;
    if (!storage || !this.deps.enabled()) return;
    // Promise.resolve().then: a storage whose setItem throws synchronously is reported like one that rejects.
    Promise.resolve()
      .then(() => storage.setItem(this.deps.key, JSON.stringify(entry)))
      .catch((err) => this.deps.diagnose({ type: "storage_failed", error: errorText(err) }));
  }

  private async restore(): Promise<void> {
    await this.deps.gate;
    const storage = this.deps.storage;
    if (!storage) return;
    try {
      const raw = await storage.getItem(this.deps.key);
      if (!raw || !this.deps.enabled()) return;
      const saved = JSON.parse(raw) as Entry;
      const valid = saved && typeof saved.expiresAt === "number" && Array.isArray(saved.config?.triggerRules) && Array.isArray(saved.config?.audienceMatches);
      if (!valid) throw new Error("stored config has an unexpected shape");
      if (this.entry || this.deps.clock.now() >= saved.expiresAt) return;
      this.entry = saved;
      this.report("storage", saved.config);
      this.deps.onLoaded(saved.config, saved.referenceId);
    } catch (err) {
      this.deps.diagnose({ type: "storage_failed", error: errorText(err) });
    }
  }
}
