/**
 * The `{pendingInvite, activeLaunch}` store behind `subscribe`/`getSnapshot`. useSyncExternalStore needs the same
 * object back while nothing changed, so a snapshot is replaced only when one of its two members is; snapshots are
 * frozen so an app cannot change one that React still compares against.
 */
import type { Snapshot } from "./types.ts";

export class SnapshotStore {
  private snapshot: Snapshot = Object.freeze({ pendingInvite: null, activeLaunch: null });
  private readonly listeners = new Set<() => void>();

  constructor(private readonly onListenerError: (err: unknown) => void) {}

  get = (): Snapshot => this.snapshot;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  set(next: Partial<Snapshot>): void {
    const pendingInvite = "pendingInvite" in next ? next.pendingInvite! : this.snapshot.pendingInvite;
    const activeLaunch = "activeLaunch" in next ? next.activeLaunch! : this.snapshot.activeLaunch;
    if (pendingInvite === this.snapshot.pendingInvite && activeLaunch === this.snapshot.activeLaunch) return;
    this.snapshot = Object.freeze({ pendingInvite, activeLaunch });
    // A copy: a listener may unsubscribe (or subscribe another) while we notify.
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
