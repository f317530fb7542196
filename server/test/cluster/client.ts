/** HTTP against any base URL (a process, or the proxy in front of several), and the receivers the tests deliver to. */
import { call, type Reply } from "../../../test/support/http.ts";
import { startReceiver, type Receiver as TestReceiver } from "../../../test/support/receiver.ts";
import { sleep, waitFor as waitUntil } from "../../../test/support/wait.ts";
import { get as httpGet } from "node:http";

export const ACME = "svc_live_acme_0123456789abcdef0123456789abcdef";
export const GLOBEX = "svc_live_globex_0123456789abcdef0123456789abcdef";

export { call, type Reply } from "../../../test/support/http.ts";

/**
 * A GET on a connection of its own (node:http, no agent): for probes whose point is the process's answer, never a
 * kept-alive socket the pool reuses after the other side closed it.
 */
export function probe(url: string, key?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { agent: false, headers: key ? { authorization: `Bearer ${key}` } : {} }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => {
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body, text, headers: new Headers(res.headers as Record<string, string>) });
      });
    });
    req.on("error", reject);
  });
}

/** `call` that insists on one status. */
export async function ok(base: string, path: string, init: Parameters<typeof call>[2] = {}, status = 200): Promise<any> {
  const r = await call(base, path, init);
  if (r.status !== status) throw new Error(`${init.method ?? "GET"} ${path} answered ${r.status} (wanted ${status}): ${r.text}`);
  return r.body;
}

export interface Received {
  at: number;
  eventId: string;
  interviewId: string;
  /** What the receiver answered, and when the answer was fully written. */
  status: number;
  answeredAt: number | null;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Requests open right now, and the most ever open at once. */
  open: () => number;
  maxOpen: () => number;
  close(): Promise<void>;
}

/** A webhook receiver: `behaviour` says what to answer to the n-th request (after an optional delay, or never). */
export async function receiver(behaviour: (n: number, eventId: string) => { status: number; delayMs?: number; hang?: boolean }): Promise<Receiver> {
  const received: Received[] = [];
  let open = 0;
  let maxOpen = 0;
  const r: TestReceiver = await startReceiver((n, _req, res) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    // The body carries no event id: one event per completed interview, so the interview names it.
    let event: { data?: { interview_id?: string } } = {};
    try {
      event = JSON.parse(r.requests[n - 1].body.toString("utf8"));
    } catch {
      /* counted with an empty id */
    }
    const interviewId = String(event.data?.interview_id ?? "");
    const entry: Received = { at: Date.now(), eventId: interviewId, interviewId, status: 0, answeredAt: null };
    received.push(entry);
    const plan = behaviour(n, entry.eventId);
    res.on("close", () => open--);
    if (plan.hang) return;
    setTimeout(() => {
      entry.status = plan.status;
      res.on("finish", () => (entry.answeredAt = Date.now()));
      res.writeHead(plan.status).end();
    }, plan.delayMs ?? 0);
  });
  return { url: r.url, received, open: () => open, maxOpen: () => maxOpen, close: r.close };
}

export interface StreamEvent {
  id: string;
  event: string;
  data: any;
}

/**
 * An SSE listener on `GET /_sim/events` (through any base URL) that reconnects with its Last-Event-ID after a cut,
 * as `api-sandbox listen` does, optionally through a different base each time (`bases` round-robin).
 */
export function listen(bases: string[], key: string): { events: StreamEvent[]; resets: string[]; reconnects: () => number; opened: Promise<void>; stop(): void } {
  const events: StreamEvent[] = [];
  // Settled once the first stream is answered 200: the server then counts this listener from its head, so an event
  // committed before that would not reach it (no Last-Event-ID yet). Tests wait on it, never on a fixed sleep.
  let markOpen!: () => void;
  const opened = new Promise<void>((resolve) => (markOpen = resolve));
  const resets: string[] = [];
  let last: string | undefined;
  let stopped = false;
  let reconnects = 0;
  let controller = new AbortController();
  const loop = async () => {
    for (let i = 0; !stopped; i++) {
      const base = bases[i % bases.length];
      controller = new AbortController();
      try {
        const res = await fetch(`${base}/_sim/events`, { headers: { authorization: `Bearer ${key}`, ...(last ? { "last-event-id": last } : {}) }, signal: controller.signal });
        if (res.status === 200 && res.body) {
          markOpen();
          const decoder = new TextDecoder();
          let buf = "";
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            buf += decoder.decode(chunk as Uint8Array, { stream: true });
            let cut: number;
            while ((cut = buf.indexOf("\n\n")) >= 0) {
              const frame = buf.slice(0, cut);
              buf = buf.slice(cut + 2);
              const f: Record<string, string> = {};
              for (const line of frame.split("\n")) {
                if (line.startsWith(":")) continue;
                const colon = line.indexOf(":");
                if (colon > 0) f[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
              }
              if (f.event === "reset") resets.push(f.data);
              if (f.id) last = f.id;
              if (f.event === "interview.completed") events.push({ id: f.id, event: f.event, data: JSON.parse(f.data) });
            }
          }
        } else await res.text().catch(() => {});
      } catch {
        /* cut: reconnect */
      }
      if (stopped) return;
      reconnects++;
      await sleep(200);
    }
  };
  void loop();
  return {
    events,
    resets,
    reconnects: () => reconnects,
    opened,
    stop() {
      stopped = true;
      controller.abort();
    },
  };
}

/** Waits until every listener's first stream is answered (10 s at most, then fails saying so). */
export async function streamsOpen(listeners: { opened: Promise<void> }[], timeoutMs = 10_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`a listener's event stream did not open within ${timeoutMs} ms`)), timeoutMs)));
  try {
    await Promise.race([Promise.all(listeners.map((l) => l.opened)), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The cluster's processes take longer to answer than one in-process app: 10 s and 50 ms steps by default. */
export const waitFor = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000, stepMs = 50): Promise<T> => waitUntil(what, probe, timeoutMs, stepMs);
export { sleep };
