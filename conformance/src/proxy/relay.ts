/**
 * The webhook relay (--relay-webhooks URL): the service's deliveries come to the proxy's RELAY_PATH and go on, bytes
 * and headers unchanged, to the client's receiver; the receiver's answer (its status, headers and body) goes back to
 * the service. Each delivery, with how long the receiver took and what it answered, goes to the judge (judging.ts: the
 * suite's attempt judge, the signature with every signing secret the proxy saw issued, the receiver's time and status).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { HOP } from "./forward.ts";
import type { RelayedDelivery } from "./judging.ts";

export const RELAY_PATH = "/.proxy/webhooks";
/** A delivery body larger than this is refused (413): the seed's payload is a few hundred bytes. */
const MAX_DELIVERY = 1_048_576;

export class Relay {
  private seq = 0;
  /** Deliveries being passed on (not yet judged), by number: when each arrived. */
  private readonly inFlight = new Map<number, number>();

  constructor(private readonly receiver: URL, private readonly judge: (d: RelayedDelivery) => void, private readonly timeoutMs = 30_000) {}

  /** When the earliest delivery still being passed on arrived: one the judge has not seen yet may be a retry it awaits. */
  earliestInFlight(): number | undefined {
    let earliest: number | undefined;
    for (const at of this.inFlight.values()) if (earliest === undefined || at < earliest) earliest = at;
    return earliest;
  }

  handles(req: IncomingMessage): boolean {
    return (req.url ?? "").split("?")[0] === RELAY_PATH;
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_DELIVERY) chunks.push(c);
    });
    req.on("end", () => {
      if (size > MAX_DELIVERY) {
        res.writeHead(413, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ error: { type: "payload_too_large_error", message: `A delivery to the relay is at most ${MAX_DELIVERY} bytes` } }));
      }
      void this.deliver(req, res, Buffer.concat(chunks));
    });
  }

  private async deliver(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const seq = ++this.seq;
    // On the clock the exchanges' `at` is (forward.ts): a delivery and a read are ordered to the fraction of a millisecond.
    const at = performance.timeOrigin + performance.now();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k) && k !== "host" && k !== "content-length") headers[k] = Array.isArray(v) ? v.join(", ") : v;
    const started = performance.now();
    const base = { seq, at, receiver: this.receiver.href, method: req.method ?? "POST", headers, raw: new Uint8Array(raw) };
    this.inFlight.set(seq, at);
    let answer: Response;
    let body: Buffer;
    try {
      answer = await fetch(this.receiver, { method: req.method, headers, body: new Uint8Array(raw), signal: AbortSignal.timeout(this.timeoutMs), redirect: "manual" });
      body = Buffer.from(await answer.arrayBuffer());
    } catch (err) {
      this.inFlight.delete(seq);
      this.judge({ ...base, status: null, tookMs: performance.now() - started, error: (err as Error).message });
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { type: "api_error", message: `Bad gateway: the receiver ${this.receiver.origin} did not answer` } }));
      return;
    }
    this.inFlight.delete(seq);
    this.judge({ ...base, status: answer.status, tookMs: performance.now() - started });
    // The receiver's headers as it sent them (a Retry-After, a Location), but for the connection's own and those of
    // the encoding fetch has undone (the body goes back decoded, its length counted again).
    const back: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (!HOP.has(k) && k !== "content-length" && k !== "content-encoding") back[k] = v;
    });
    res.writeHead(answer.status, back);
    res.end(body);
  }
}
