/**
 * The delivery stream behind `GET /_sim/events` (and `api-sandbox listen`): every webhook event of a project, as
 * the exact signed request, to every connected listener, as Server-Sent Events.
 *
 * Ids: each project numbers its events (`seq`), and an event's SSE id is `<epoch>-<seq>`. The epoch is drawn once
 * per data dir or database (kept across restarts, so numbering goes on) or once per process without one, so an id
 * never means two events. The events are the store's (stores/stream.ts: in the process, or rows of PostgreSQL's
 * `stream` shared by every process); this class holds only the open listeners, each with the last number it was sent,
 * and after a commit (or a notification naming the project, from another process) sends each one what it has not
 * had, in order. A listener that reconnects with `Last-Event-ID` gets every held event after that one, none twice; an id
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
import type { Logger } from "pino";
import type { Backend } from "../stores/backend.ts";
import type { NewStreamEvent, StreamEvent, StreamLog } from "../stores/stream.ts";
import type { SharedCounter } from "../stores/limits.ts";
import type { Project } from "../model/project.ts";
import { ApiError } from "../http/errors.ts";
import { DEFAULT_TENANT_LIMITS, OpenSlots, tooMany, type TenantLimits } from "../model/tenant-limits.ts";

export type { StreamEvent } from "../stores/stream.ts";

/** One open listener: its response, and the last number it was sent. */
interface Listener {
  res: ServerResponse;
  after: number;
}

/** A project's listeners on this process, and whether their frames are being read and sent now. */
interface ProjectListeners {
  listeners: Set<Listener>;
  sending: boolean;
  again: boolean;
}

const frame = (e: StreamEvent) => `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e)}\n\n`;
const resetFrame = (reason: string, lastEventId: string) => `event: reset\ndata: ${JSON.stringify({ reason, last_event_id: lastEventId })}\n\n`;

export interface EventStreamOptions {
  /** Events held per project for resumption (default 1,000). */
  keep?: number;
  heartbeatMs?: number;
  limits?: Partial<TenantLimits>;
  logger?: Logger;
}

export class EventStreams {
  private readonly projects = new Map<string, ProjectListeners>();
  private readonly heartbeat: NodeJS.Timeout;
  /** This stream's epoch: the prefix of every SSE id. */
  readonly epoch: string;
  private readonly log: StreamLog;
  private readonly slots: OpenSlots;
  private readonly limits: Pick<TenantLimits, "streams" | "streamsPerAddress" | "streamBufferBytes">;
  private readonly logger?: Logger;
  /** Set by closeAll: a shutdown has begun, and a listener reconnecting on a kept-alive connection is refused. */
  private closing = false;

  /** `log`: where the numbered events are kept (stores/stream.ts), given this stream's epoch and how many to hold. */
  constructor(
    private readonly backend: Backend,
    log: (epoch: string, keep: number) => StreamLog,
    options: EventStreamOptions = {},
  ) {
    const keep = options.keep ?? 1_000;
    this.limits = { ...DEFAULT_TENANT_LIMITS, ...options.limits };
    this.logger = options.logger;
    const { streams, streamsPerAddress } = this.limits;
    this.slots = new OpenSlots(streams, streamsPerAddress, {
      tenant: () => tooMany(`This organisation already has ${streams} open event streams (--max-streams); close one first`, 5),
      address: () => tooMany(`This address already has ${streamsPerAddress} open event streams (--max-streams-per-address); close one first`, 5),
    });
    const kept = backend.getMeta("stream_epoch");
    this.epoch = kept ?? randomBytes(5).toString("hex");
    if (!kept) backend.setMeta("stream_epoch", this.epoch);
    this.log = log(this.epoch, keep);
    // A comment line now and then keeps proxies and idle timeouts from closing a quiet stream, and finds listeners
    // that stopped reading even when no event is published.
    this.heartbeat = setInterval(() => {
      for (const p of this.projects.values()) for (const l of p.listeners) this.write(p, l, ": keep-alive\n\n");
    }, options.heartbeatMs ?? 15_000);
    this.heartbeat.unref();
  }

  /** Writes to one listener, or drops it when it has stopped reading (its buffer is past the bound). */
  private write(p: ProjectListeners, l: Listener, text: string): void {
    const { res } = l;
    // Ended (endStreams) and not yet closed: a write after the end would be an error event on the response.
    if (res.writableEnded || res.destroyed) {
      p.listeners.delete(l);
      return;
    }
    if (res.writableLength > this.limits.streamBufferBytes) {
      p.listeners.delete(l);
      res.destroy();
      return;
    }
    res.write(text);
  }

  /**
   * Numbers the event and keeps it, in the change in progress; once that change is committed, every listener of the
   * project gets it (a listener never holds a frame the database then refuses: its number would come again).
   */
  publish(projectId: string, event: NewStreamEvent): StreamEvent | Promise<StreamEvent> {
    const e = this.log.append(projectId, event);
    this.backend.afterCommit(() => this.wake(projectId));
    return e;
  }

  /**
   * Sends the project's listeners on this process what they have not had: after a commit here, or when another
   * process's commit names the project (a shared store), or at the poll.
   */
  wake(projectId: string): void {
    const p = this.projects.get(projectId);
    if (!p) return;
    if (p.sending) {
      p.again = true;
      return;
    }
    void this.send(projectId, p);
  }

  /** Every project with a listener here (a shared store's poll, in case a notification was lost). */
  wakeAll(): void {
    for (const projectId of this.projects.keys()) this.wake(projectId);
  }

  private async send(projectId: string, p: ProjectListeners): Promise<void> {
    p.sending = true;
    try {
      do {
        p.again = false;
        if (p.listeners.size === 0) break;
        // The listeners as they are now: one that subscribes during the read below may be behind `from`, and is sent
        // its events by the next round (its subscribe wakes the project), never told they are gone.
        const batch = [...p.listeners];
        let from = Infinity;
        for (const l of batch) from = Math.min(from, l.after);
        const events = await this.log.after(projectId, from);
        for (const l of batch) {
          if (!p.listeners.has(l)) continue;
          const fresh = events.filter((e) => e.seq > l.after);
          if (fresh.length === 0) continue;
          // Dropped while this listener was behind (more than the stream holds came at once): said, never skipped.
          if (fresh[0].seq > l.after + 1) this.write(p, l, resetFrame(`events_expired: events ${l.after + 1} to ${fresh[0].seq - 1} are no longer held; the held ones follow`, `${this.epoch}-${l.after}`));
          for (const e of fresh) this.write(p, l, frame(e));
          l.after = fresh[fresh.length - 1].seq;
        }
      } while (p.again);
    } catch (err) {
      // The store did not answer (the database away): the next commit, notification or poll sends them.
      this.logger?.warn({ err: (err as Error).message, project_id: projectId }, "stream events could not be read; sent at the next wake");
    } finally {
      p.sending = false;
      if (p.listeners.size === 0 && this.projects.get(projectId) === p) this.projects.delete(projectId);
    }
  }

  /**
   * Starts an SSE response: the events after `lastEventId` that are still held, then every new one. Refuses with a
   * 429 (before any header is sent) when the tenant or the address already has its share of open streams.
   */
  async subscribe(project: Project, res: ServerResponse, lastEventId: string | undefined, address: string): Promise<void> {
    const head = res.req?.method === "HEAD";
    // Accepted now, the stream would hold the shutdown open until its grace period ends.
    if (this.closing) throw new ApiError(503, "api_error", "The sandbox is shutting down", undefined, { "Retry-After": "1", Connection: "close" }).loggedAs("info", "event stream refused: shutting down");
    if (head) {
      res.writeHead(200, STREAM_HEADERS);
      // HEAD asks for the headers only: answered, never held open as a listener.
      res.end();
      return;
    }
    // Where the listener starts, read before any header is sent: a store that does not answer is a 503.
    const last = await this.log.head(project.id);
    const resume = lastEventId !== undefined && lastEventId !== "" ? await this.resumeFrom(project.id, lastEventId, last) : null;
    await this.slots.admit(project.tenant, address);
    // The client went away while its slot was being counted over the other processes.
    if (res.destroyed) {
      this.slots.release(project.tenant, address);
      return;
    }
    let p = this.projects.get(project.id);
    if (!p) this.projects.set(project.id, (p = { listeners: new Set(), sending: false, again: false }));
    const listener: Listener = { res, after: resume ? resume.after : last };
    const mine = p;
    res.on("close", () => {
      mine.listeners.delete(listener);
      if (mine.listeners.size === 0 && !mine.sending && this.projects.get(project.id) === mine) this.projects.delete(project.id);
      this.slots.release(project.tenant, address);
    });
    res.writeHead(200, STREAM_HEADERS);
    res.write(`: ${p.listeners.size + 1} listener(s) on this project\nretry: 1000\n\n`);
    if (resume) {
      if (resume.reset) res.write(resetFrame(resume.reset, lastEventId!));
    } else {
      // A fresh listener learns where the stream stands, so a cut before its first event resumes from here without
      // loss (the id sets EventSource's lastEventId too).
      const at = `${this.epoch}-${last}`;
      res.write(`id: ${at}\nevent: ready\ndata: ${JSON.stringify({ last_event_id: at })}\n\n`);
    }
    p.listeners.add(listener);
    // The held events after its position, and whatever was committed while it was being set up.
    this.wake(project.id);
  }

  /** Where a `Last-Event-ID` resumes: after which seq, and why the stream must say `reset` first (if it must). */
  private async resumeFrom(projectId: string, lastEventId: string, last: number): Promise<{ after: number; reset?: string }> {
    const m = /^([0-9a-f]+)-(\d+)$/.exec(lastEventId);
    if (!m || m[1] !== this.epoch) {
      return { after: last, reset: "unknown_epoch: the id is not from this sandbox's stream (it restarted without a data dir, or the id is from elsewhere); events in between, if any, are not known" };
    }
    const seq = Number(m[2]);
    if (seq > last) return { after: last, reset: `unknown_id: this stream has numbered only ${last} events` };
    const oldest = (await this.log.oldest(projectId)) ?? last + 1;
    // Said once, here: the listener then starts at the oldest held event, so the first send does not say it again.
    if (seq + 1 < oldest) return { after: oldest - 1, reset: `events_expired: events ${seq + 1} to ${oldest - 1} are no longer held; the held ones follow` };
    return { after: seq };
  }

  /** A held event of the project by its event id (the last one with that id: a resend repeats it). */
  find(projectId: string, eventId: string): Promise<StreamEvent | undefined> {
    return this.log.find(projectId, eventId);
  }

  /** Open listeners of one project on this process. */
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
      for (const { res } of p.listeners) {
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

const STREAM_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive", "X-Accel-Buffering": "no" };
