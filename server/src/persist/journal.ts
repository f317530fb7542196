/**
 * What the server writes down so a restart with `--data-dir` finds everything as it was. Without a data dir the
 * memory journal writes nothing: state lives in the process, as it always did.
 *
 * Store changes are recorded as their results (the interview as created, the fields a transition set), never as
 * requests to run again, so replaying them at the next start is deterministic and sends nothing.
 */
import type { StoredChat, StoredInterview, StoredMessage, StoredStudy } from "../../../fixtures/types.ts";
import type { components } from "../../../generated/schema.d.ts";

type FaultSettings = Required<components["schemas"]["SimFaultSettings"]>;
type WebhookDelivery = components["schemas"]["WebhookDelivery"];

export type Op =
  | { kind: "project.created"; project: { id: string; name: string; api_key: string; public_key: string; tenant: string; created_at: string } }
  | { kind: "webhook.set"; project_id: string; url: string; events: Array<"interview.completed">; secret: string }
  | { kind: "webhook.deleted"; project_id: string }
  | { kind: "study.planted"; study: StoredStudy }
  /** `processing_at` / `completes_at`: when the simulated interview's timers fire (null: held, or already done). */
  | { kind: "interview.created"; interview: StoredInterview; processing_at: number | null; completes_at: number | null }
  | { kind: "interview.changed"; project_id: string; id: string; change: Partial<StoredInterview> }
  | { kind: "interview.abandoned"; project_id: string; id: string }
  | { kind: "chat.planted"; chat: StoredChat; messages: StoredMessage[] }
  /** The project's whole fault settings after a change (null: cleared), counters included. */
  | { kind: "faults.set"; project_id: string; settings: FaultSettings | null }
  | { kind: "prompt.recorded"; project_id: string; event_id: string; phase: string; received_at: string }
  | { kind: "listener.secret"; project_id: string; secret: string }
  | { kind: "forward.recorded"; project_id: string; forward: components["schemas"]["SimForward"] };

/** A webhook event with its exact request, bound to the webhook setting it was made for. */
export interface StoredEvent {
  id: string;
  project_id: string;
  interview_id: string;
  url: string;
  secret: string;
  version: number;
  body: string;
  headers: Record<string, string>;
}

export interface StoredAttempt {
  project_id: string;
  record: WebhookDelivery;
}

export interface StoredStreamEvent {
  project_id: string;
  event: components["schemas"]["SimStreamEvent"];
}

export interface Journal {
  /** Whether anything outlives the process (the banner and the SIGTERM log say which). */
  readonly durable: boolean;
  readonly dir: string | null;
  append(op: Op): void;
  ops(): Op[];
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  putEvent(e: StoredEvent): void;
  dropEvent(id: string): void;
  events(): StoredEvent[];
  putAttempt(a: StoredAttempt): void;
  dropAttempt(id: string): void;
  attempts(): StoredAttempt[];
  putStreamEvent(s: StoredStreamEvent): void;
  dropStreamEvents(projectId: string, throughSeq: number): void;
  streamEvents(): StoredStreamEvent[];
  atomically<T>(fn: () => T): T;
  close(): void;
}

/** No data dir: nothing is written, nothing is read back. */
export class MemoryJournal implements Journal {
  readonly durable = false;
  readonly dir = null;
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
