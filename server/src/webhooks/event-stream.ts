/**
 * The delivery stream behind `GET /_sim/events` (and `api-sandbox listen`): every webhook event of a project, as
 * the exact signed request, to every connected listener, as Server-Sent Events.
 *
 * Ids: each project numbers its events (`seq`), and an event's SSE id is `<epoch>-<seq>`. The epoch is drawn once
 * per data dir or database (kept across restarts, so numbering goes on) or once per process without one, so an id
 * never means two events. With a shared database every process holds the same numbered events (`receive`), so a
 * listener resumes on any of them. A listener that reconnects with `Last-Event-ID` gets every held event after that one, none twice; an id
 * the server does not know (another epoch, a number never given, or events no longer held) is answered with
 * `event: reset` and its reason first, never with a silent gap.
 *
 * Bounds: at most `limits.streams` open streams per tenant (over every process, with a shared database) and
 * `limits.streamsPerAddress` per source address (429);
 * a listener whose unread buffer passes `limits.streamBufferBytes` is dropped (it reconnects and resumes), so a
 * client that never reads costs at most that much memory.
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { components } from "../../../generated/schema.d.ts";
import type { Journal } from "../stores/journal.ts";
import type { SharedCounter } from "../stores/postgres/shared-slots.ts";
import type { Project } from "../model/project.ts";
import { ApiError } from "../http/errors.ts";
import { DEFAULT_TENANT_LIMITS, OpenSlots, tooMany, type TenantLimits } from "../model/tenant-limits.ts";

export type StreamEvent = components["schemas"]["SimStreamEvent"];

interface ProjectStream {
  next: number;
  events: StreamEvent[];
  listeners: Set<ServerResponse>;
}

const frame = (e: StreamEvent) => `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e)}\n\n`;
const resetFrame = (reason: string, lastEventId: string) => `event: reset\ndata: ${JSON.stringify({ reason, last_event_id: lastEventId })}\n\n`;

export class EventStreams {
  private readonly projects = new Map<string, ProjectStream>();
  private readonly heartbeat: NodeJS.Timeout;
  /** Events held per project for resumption. */
  private readonly keep: number;
  /** This stream's epoch: the prefix of every SSE id. */
  readonly epoch: string;
  private readonly slots: OpenSlots;
  private readonly limits: Pick<TenantLimits, "streams" | "streamsPerAddress" | "streamBufferBytes">;
  /** Set by closeAll: a shutdown has begun, and a listener reconnecting on a kept-alive connection is refused. */
  private closing = false;

  constructor(
    private readonly journal: Journal,
    options: { keep?: number; heartbeatMs?: number; limits?: Partial<TenantLimits> } = {},
  ) {
    this.keep = options.keep ?? 1_000;
    this.limits = { ...DEFAULT_TENANT_LIMITS, ...options.limits };
    const { streams, streamsPerAddress } = this.limits;
    this.slots = new OpenSlots(streams, streamsPerAddress, {
      tenant: () => tooMany(`This organisation already has ${streams} open event streams (--max-streams); close one first`, 5),
      address: () => tooMany(`This address already has ${streamsPerAddress} open event streams (--max-streams-per-address); close one first`, 5),
    });
    const kept = journal.getMeta("stream_epoch");
    this.epoch = kept ?? randomBytes(5).toString("hex");
    if (!kept) journal.setMeta("stream_epoch", this.epoch);
    for (const { project_id, event } of journal.streamEvents()) {
      const p = this.of(project_id);
      p.events.push(event);
      p.next = event.seq + 1;
    }
    // A comment line now and then keeps proxies and idle timeouts from closing a quiet stream, and finds listeners
    // that stopped reading even when no event is published.
    this.heartbeat = setInterval(() => {
      for (const p of this.projects.values()) for (const res of p.listeners) this.write(p, res, ": keep-alive\n\n");
    }, options.heartbeatMs ?? 15_000);
    this.heartbeat.unref();
  }

  private of(projectId: string): ProjectStream {
    let p = this.projects.get(projectId);
    if (!p) this.projects.set(projectId, (p = { next: 1, events: [], listeners: new Set() }));
    return p;
  }

  /** Writes to one listener, or drops it when it has stopped reading (its buffer is past the bound). */
  private write(p: ProjectStream, res: ServerResponse, text: string): void {
    // Ended (endStreams) and not yet closed: a write after the end would be an error event on the response.
    if (res.writableEnded || res.destroyed) {
      p.listeners.delete(res);
      return;
    }
    if (res.writableLength > this.limits.streamBufferBytes) {
      p.listeners.delete(res);
      res.destroy();
      return;
    }
    res.write(text);
  }

  /** Numbers the event, keeps it for resumption, and writes it to every listener of the project. */
  publish(projectId: string, event: Omit<StreamEvent, "seq" | "id">): StreamEvent {
    const p = this.of(projectId);
    const seq = p.next++;
    const e = { seq, id: `${this.epoch}-${seq}`, ...event } as StreamEvent;
    this.journal.putStreamEvent({ project_id: projectId, event: e });
    p.events.push(e);
    if (p.events.length > this.keep) {
      const gone = p.events.splice(0, p.events.length - this.keep);
      this.journal.dropStreamEvents(projectId, gone[gone.length - 1].seq);
    }
    const text = frame(e);
    // Sent once the change is committed: a listener never holds a frame the database then refuses (its number
    // would come again).
    this.journal.afterCommit(() => {
      for (const res of p.listeners) this.write(p, res, text);
    });
    return e;
  }

  /**
   * An event another process published (a shared store): kept for resumption and written to this process's
   * listeners, in the log's order. Its number was given under the log's lock, so it follows the last one held.
   */
  receive({ project_id, event }: { project_id: string; event: StreamEvent }): void {
    const p = this.of(project_id);
    if (event.seq < p.next) return;
    p.next = event.seq + 1;
    p.events.push(event);
    if (p.events.length > this.keep) p.events.splice(0, p.events.length - this.keep);
    const text = frame(event);
    for (const res of p.listeners) this.write(p, res, text);
  }

  /**
   * Starts an SSE response: the events after `lastEventId` that are still held, then every new one. Refuses with a
   * 429 (before any header is sent) when the tenant or the address already has its share of open streams.
   */
  async subscribe(project: Project, res: ServerResponse, lastEventId: string | undefined, address: string): Promise<void> {
    const p = this.of(project.id);
    const head = res.req?.method === "HEAD";
    // Accepted now, the stream would hold the shutdown open until its grace period ends.
    if (this.closing) throw new ApiError(503, "api_error", "The sandbox is shutting down", undefined, { "Retry-After": "1", Connection: "close" }).loggedAs("info", "event stream refused: shutting down");
    if (!head) {
      await this.slots.admit(project.tenant, address);
      // The client went away while its slot was being counted over the other processes.
      if (res.destroyed) {
        this.slots.release(project.tenant, address);
        return;
      }
      res.on("close", () => {
        p.listeners.delete(res);
        this.slots.release(project.tenant, address);
      });
    }
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive", "X-Accel-Buffering": "no" });
    // HEAD asks for the headers only: answered, never held open as a listener.
    if (head) {
      res.end();
      return;
    }
    res.write(`: ${p.listeners.size + 1} listener(s) on this project\nretry: 1000\n\n`);
    if (lastEventId !== undefined && lastEventId !== "") {
      const resume = this.resumeFrom(p, lastEventId);
      if (resume.reset) res.write(resetFrame(resume.reset, lastEventId));
      for (const e of p.events) if (e.seq > resume.after) res.write(frame(e));
    } else {
      // A fresh listener learns where the stream stands, so a cut before its first event resumes from here without
      // loss (the id sets EventSource's lastEventId too).
      const at = `${this.epoch}-${p.next - 1}`;
      res.write(`id: ${at}\nevent: ready\ndata: ${JSON.stringify({ last_event_id: at })}\n\n`);
    }
    p.listeners.add(res);
  }

  /** Where a `Last-Event-ID` resumes: after which seq, and why the stream must say `reset` first (if it must). */
  private resumeFrom(p: ProjectStream, lastEventId: string): { after: number; reset?: string } {
    const m = /^([0-9a-f]+)-(\d+)$/.exec(lastEventId);
    const last = p.next - 1;
    if (!m || m[1] !== this.epoch) {
      return { after: last, reset: "unknown_epoch: the id is not from this sandbox's stream (it restarted without a data dir, or the id is from elsewhere); events in between, if any, are not known" };
    }
    const seq = Number(m[2]);
    if (seq > last) return { after: last, reset: `unknown_id: this stream has numbered only ${last} events` };
    const oldest = p.events[0]?.seq ?? p.next;
    if (seq + 1 < oldest) return { after: seq, reset: `events_expired: events ${seq + 1} to ${oldest - 1} are no longer held; the held ones follow` };
    return { after: seq };
  }

  /** A held event of the project by its event id (the last one with that id: a resend repeats it). */
  find(projectId: string, eventId: string): StreamEvent | undefined {
    const events = this.projects.get(projectId)?.events ?? [];
    for (let i = events.length - 1; i >= 0; i--) if (events[i].event_id === eventId) return events[i];
    return undefined;
  }

  /** Open listeners of one project. */
  listenersOf(projectId: string): number {
    return this.projects.get(projectId)?.listeners.size ?? 0;
  }

  /**
   * Ends every open stream: listeners reconnect with their Last-Event-ID. `final` (the first step of a shutdown):
   * reconnections are refused with a 503 from then on.
   */
  closeAll(final = false): void {
    if (final) this.closing = true;
    for (const p of this.projects.values()) {
      for (const res of p.listeners) {
        // At a shutdown the connection goes too: kept alive, it would carry the listener's reconnection.
        if (final) res.once("finish", () => res.socket?.destroy());
        res.end();
      }
      p.listeners.clear();
    }
  }

  /** Counts the per-tenant cap of open streams over every process sharing `counter` (one PostgreSQL). */
  share(counter: SharedCounter): void {
    this.slots.share(counter, "streams");
  }

  /** Ends every stream and stops the heartbeat (the app is closing). */
  dispose(): void {
    clearInterval(this.heartbeat);
    this.closeAll(true);
  }
}
