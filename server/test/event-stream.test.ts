// The delivery stream's fan-out (webhooks/event-stream.ts) over real HTTP, with the store's read held at will: a
// listener that resumes with Last-Event-ID while the project's other listeners are being sent a batch gets every event
// after its id, and no reset. (The cluster soak saw `api-sandbox listen` reconnect through nginx in that window, be
// told `events_expired` and lose the events between its id and the batch.)
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createParser } from "eventsource-parser";
import { afterEach, describe, expect, it } from "vitest";
import { Project } from "../src/model/project.ts";
import { MemoryBackend } from "../src/stores/memory/backend.ts";
import { MemoryStream } from "../src/stores/memory/stream.ts";
import type { StreamEvent } from "../src/stores/stream.ts";
import { EventStreams } from "../src/webhooks/event-stream.ts";

const project = new Project({ id: "p", name: "p", api_key: "", public_key: "" });
const event = (n: number) => ({
  event_id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
  event: "interview.completed" as const,
  interview_id: `10000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
  reason: "delivery" as const,
  headers: {},
  body: "{}",
});

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanup.splice(0)) fn();
});

/** A stream over a memory log holding `keep` events, whose `after` reads wait while held (`hold`), behind a real HTTP server. */
async function start(keep?: number) {
  const backend = new MemoryBackend();
  let gate: { open: Promise<void>; release: () => void } | null = null;
  let reads = 0;
  const streams = new EventStreams(backend, (epoch, held) => {
    const log = new MemoryStream(backend, epoch, keep ?? held);
    const after = log.after.bind(log);
    log.after = async (projectId, seq) => {
      reads++;
      const events = await after(projectId, seq);
      await gate?.open;
      return events;
    };
    return log;
  });
  const server: Server = createServer((req, res) => {
    const last = req.headers["last-event-id"];
    streams.subscribe(project, res, typeof last === "string" ? last : undefined, "127.0.0.1").catch((err) => res.destroy(err));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const controllers: AbortController[] = [];
  cleanup.push(() => {
    for (const c of controllers) c.abort();
    streams.dispose();
    server.closeAllConnections();
    server.close();
  });
  return {
    streams,
    reads: () => reads,
    hold() {
      let release!: () => void;
      const open = new Promise<void>((r) => (release = r));
      gate = { open, release };
    },
    release() {
      gate?.release();
      gate = null;
    },
    publish: (n: number) => streams.publish(project.id, event(n)) as StreamEvent,
    /** Opens a stream; its frames (not `ready`) as they come. */
    async open(lastEventId?: string) {
      const controller = new AbortController();
      controllers.push(controller);
      const res = await fetch(`${base}/_sim/events`, { headers: lastEventId ? { "last-event-id": lastEventId } : {}, signal: controller.signal });
      expect(res.status).toBe(200);
      const frames: Array<{ event?: string; id?: string; data: string }> = [];
      const parser = createParser({ onEvent: (e) => void (e.event !== "ready" && frames.push({ event: e.event, id: e.id, data: e.data })) });
      void (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
      })().catch(() => undefined);
      return frames;
    },
  };
}

const until = async (what: string, ok: () => boolean) => {
  const end = Date.now() + 5_000;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`${what}: not in 5 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe("the delivery stream's fan-out", () => {
  it("sends a listener resuming while a batch is being read every event after its id, without a reset", async () => {
    const s = await start();
    const first = await s.open();
    await until("the first listener on", () => s.streams.listenersOf(project.id) === 1);
    const published = [1, 2, 3, 4, 5].map((n) => s.publish(n));
    await until("five events on the first stream", () => first.length === 5);

    // The next batch's read is held: the first listener is being sent event 6 while the second one resumes after 2.
    s.hold();
    const readsBefore = s.reads();
    published.push(s.publish(6));
    await until("the batch read begun", () => s.reads() > readsBefore);
    const second = s.open(published[1].id);
    await until("the second listener on", () => s.streams.listenersOf(project.id) === 2);
    s.release();
    const resumed = await second;
    await until("event 6 on the resumed stream", () => resumed.some((f) => f.id === published[5].id));
    await until("event 6 on the first stream", () => first.length >= 6);
    await new Promise((r) => setTimeout(r, 50));

    expect(resumed.map((f) => f.event)).toEqual(Array(4).fill("interview.completed"));
    expect(resumed.map((f) => f.id)).toEqual(published.slice(2).map((e) => e.id));
    expect(first.map((f) => f.id)).toEqual(published.map((e) => e.id));
  });

  it("still says `reset` when the events after the id are no longer held", async () => {
    const s = await start(3);
    const events = [1, 2, 3, 4, 5, 6].map((n) => s.publish(n));
    const frames = await s.open(events[0].id);
    await until("the reset and the three held events", () => frames.length >= 4);
    expect(frames.map((f) => ({ event: f.event, id: f.id }))).toEqual([{ event: "reset", id: undefined }, ...events.slice(3).map((e) => ({ event: "interview.completed", id: e.id }))]);
  });
});
