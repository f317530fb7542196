/** The default store (`npm start`): state lives in the process, and nothing outlives it. */
import type { ChangeLog, DeliveryLog, Backend, NotReady, Op, StoredAttempt, StoredEvent, StoredStreamEvent } from "../backend.ts";

/** No data dir: nothing is written, nothing is read back. */
export class MemoryBackend implements Backend, ChangeLog, DeliveryLog {
  readonly kind = "memory";
  readonly durable = false;
  readonly dir = null;
  readonly shared = false;
  write<T>(fn: () => T): T {
    return fn();
  }
  afterCommit(fn: () => void): void {
    fn();
  }
  ready(): Promise<NotReady | null> {
    return Promise.resolve(null);
  }
  private readonly meta = new Map<string, string>();
  append(): void {}
  ops(): Op[] {
    return [];
  }
  getMeta(key: string): string | undefined {
    return this.meta.get(key);
  }
  setMeta(key: string, value: string): void {
    this.meta.set(key, value);
  }
  putEvent(): void {}
  dropEvent(): void {}
  events(): StoredEvent[] {
    return [];
  }
  putAttempt(): void {}
  dropAttempt(): void {}
  attempts(): StoredAttempt[] {
    return [];
  }
  putStreamEvent(): void {}
  dropStreamEvents(): void {}
  streamEvents(): StoredStreamEvent[] {
    return [];
  }
  atomically<T>(fn: () => T): T {
    return fn();
  }
  close(): void {}
}
