/**
 * The delivery stream's numbered events (`GET /_sim/events`; webhooks/event-stream.ts serves them): memory and SQLite
 * keep them in the process (stores/memory/stream.ts), several processes on one PostgreSQL in its `stream` table only
 * (stores/postgres/stream.ts). Each project numbers its events from 1; the last `keep` of them are held for resumption.
 */
import type { components } from "../../../generated/schema.d.ts";

export type StreamEvent = components["schemas"]["SimStreamEvent"];
export type NewStreamEvent = Omit<StreamEvent, "seq" | "id">;

export interface StreamLog {
  /** Numbers the event (its id is `<epoch>-<seq>`) and keeps it, in the change in progress. */
  append(projectId: string, event: NewStreamEvent): StreamEvent | Promise<StreamEvent>;
  /** The last number the project gave (0: none yet). */
  head(projectId: string): Promise<number>;
  /** The oldest number still held (undefined: none held). */
  oldest(projectId: string): Promise<number | undefined>;
  /** The held events numbered after `seq`, in their order. */
  after(projectId: string, seq: number): Promise<StreamEvent[]>;
  /** The last held event with this event id (a resend repeats one). */
  find(projectId: string, eventId: string): Promise<StreamEvent | undefined>;
}
