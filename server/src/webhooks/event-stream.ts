/**
 * The delivery stream behind `GET /_sim/events` (and `api-sandbox listen`): every webhook event of a project, as
 * the exact signed request, to every connected listener, as Server-Sent Events. Each project numbers its events
 * (`seq`, the SSE `id`) and keeps the last `keep` of them, so a listener that reconnects with `Last-Event-ID`
 * gets every event after that one, none twice. Listeners are independent: each gets every event.
 */
import type { ServerResponse } from "node:http";
import type { components } from "../../../generated/schema.d.ts";

export type StreamEvent = components["schemas"]["SimStreamEvent"];

interface ProjectStream {
  next: number;
  events: StreamEvent[];
  listeners: Set<ServerResponse>;
}

const frame = (e: StreamEvent) => `id: ${e.seq}\nevent: ${e.event}\ndata: ${JSON.stringify(e)}\n\n`;

export class EventStreams {
  private readonly projects = new Map<string, ProjectStream>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly keep = 1_000, heartbeatMs = 15_000) {
    // A comment line now and then keeps proxies and idle timeouts from closing a quiet stream.
    this.heartbeat = setInterval(() => {
      for (const p of this.projects.values()) for (const res of p.listeners) res.write(": keep-alive\n\n");
    }, heartbeatMs);
    this.heartbeat.unref();
  }

  private of(projectId: string): ProjectStream {
    let p = this.projects.get(projectId);
    if (!p) this.projects.set(projectId, (p = { next: 1, events: [], listeners: new Set() }));
    return p;
  }

  /** Numbers the event, keeps it for resumption, and writes it to every listener of the project. */
  publish(projectId: string, event: Omit<StreamEvent, "seq">): StreamEvent {
    const p = this.of(projectId);
    const e = { seq: p.next++, ...event } as StreamEvent;
    p.events.push(e);
    if (p.events.length > this.keep) p.events.splice(0, p.events.length - this.keep);
    for (const res of p.listeners) res.write(frame(e));
    return e;
  }

  /**
   * Starts an SSE response: the events after `lastEventId` that are still held, then every new one. A `lastEventId`
   * older than what is held starts at the oldest held event (the stream says so in a comment).
   */
  subscribe(projectId: string, res: ServerResponse, lastEventId: string | undefined): void {
    const p = this.of(projectId);
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive", "X-Accel-Buffering": "no" });
    // HEAD asks for the headers only: answered, never held open as a listener.
    if (res.req?.method === "HEAD") {
      res.end();
      return;
    }
    res.write(`: ${p.listeners.size + 1} listener(s) on this project\nretry: 1000\n\n`);
    const after = lastEventId !== undefined && /^\d+$/.test(lastEventId) ? Number(lastEventId) : null;
    if (after !== null) {
      const oldest = p.events[0]?.seq;
      if (oldest !== undefined && oldest > after + 1) res.write(`: events ${after + 1} to ${oldest - 1} are no longer held\n\n`);
      for (const e of p.events) if (e.seq > after) res.write(frame(e));
    }
    p.listeners.add(res);
    res.on("close", () => p.listeners.delete(res));
  }

  /** Ends every open stream (the first step of a shutdown): listeners reconnect with their Last-Event-ID. */
  closeAll(): void {
    for (const p of this.projects.values()) {
      for (const res of p.listeners) res.end();
      p.listeners.clear();
    }
  }

  /** Ends every stream and stops the heartbeat (the app is closing). */
  dispose(): void {
    clearInterval(this.heartbeat);
    this.closeAll();
  }
}
