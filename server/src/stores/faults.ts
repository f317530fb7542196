/**
 * The faults port: what the fault registry (faults/settings.ts) needs of a store that processes share. The PostgreSQL
 * store implements it (postgres/fault-settings.ts); one process keeps its settings in the registry itself.
 */
import type { components } from "../../../generated/schema.d.ts";

type FaultSettings = Required<components["schemas"]["SimFaultSettings"]>;

/** The settings that count down as they are used. */
export type FaultCounter = "fail_next" | "webhook_failures";

/**
 * Fault settings kept where several processes share them (PostgreSQL: postgres/fault-settings.ts), read by
 * every request whichever process answers it; no process holds them. Counters are consumed exactly once over every
 * process.
 */
export interface SharedFaultSettings {
  /** Writes the settings (null: none), counters included, in the change in progress. */
  set(projectId: string, settings: FaultSettings | null): Promise<void>;
  /** The settings now, counters as they are left; `version` changes with each `set`. Null: none are set. */
  read(projectId: string): Promise<{ settings: FaultSettings; version: string } | null>;
  /** Consumes one; what is left, or null when there was none. */
  take(projectId: string, counter: FaultCounter): Promise<number | null>;
}
