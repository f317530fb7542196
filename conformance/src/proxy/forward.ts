/**
 * The forwarding half of the proxy: every request goes to the target as it came (method, path, headers, body streamed)
 * and every answer comes back as it left the target (status, headers, body streamed chunk by chunk, so event streams
 * flow live; compressed bodies pass compressed). Only hop-by-hop headers (RFC 9110 7.6.1) are the connection's own, and
 * Host names the target. A copy of each body, up to a limit, is kept to judge once the exchange has ended, off the
 * path of the answer. A target that refuses, fails or stalls gets the client a 502 in the error envelope, never a hang.
 */
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { isEventStreamType } from "../http.ts";
import { decoded, type Exchange } from "./exchange.ts";

/** Hop-by-hop headers (RFC 9110 7.6.1): each connection's own, never passed on. */
export const HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer", "proxy-authorization", "proxy-authenticate"]);

export interface ForwardOptions {
  target: URL;
  /** Adds `Via: 1.1 api-conformance-proxy` to the request and the answer (RFC 9110 7.6.3); off by default. */
  via: boolean;
  /** Most bytes of a request body kept to judge. */
  requestCapture: number;
  /** Most bytes of an answer kept (and decoded) to judge. */
  responseCapture: number;
  /** Most bytes the captures of all exchanges in flight hold together. */
  captureBudget: number;
  /** Longest the target may take to answer, or stay silent within an answer that is not an event stream. */
  upstreamTimeoutMs: number;
  /** Called once an exchange has ended: it must not block (the proxy posts it to its judge worker). */
  onExchange(ex: Exchange): void;
  /** Requests the proxy answers itself (the webhook relay): return true when handled. */
  intercept?(req: IncomingMessage, res: ServerResponse): boolean;
}

/** Bytes held by the captures of every exchange in flight, against one bound: many large answers at once stay bounded. */
export class CaptureBudget {
  used = 0;
  constructor(readonly max: number) {}
}

/** Collects chunks up to `limit` bytes, within the shared budget; past either, only the count (and why). */
class Capture {
  private chunks: Buffer[] = [];
  private held = 0;
  size = 0;
  /** Why the bytes were not kept, once they were not. */
  dropped: string | null = null;
  constructor(private readonly limit: number, private readonly budget: CaptureBudget) {}
  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.dropped) return;
    if (this.size > this.limit) this.drop(`the body was over the ${this.limit}-byte capture limit`);
    else if (this.budget.used + chunk.length > this.budget.max) this.drop(`the exchanges in flight held the proxy's whole ${this.budget.max}-byte capture budget`);
    else {
      this.chunks.push(chunk);
      this.held += chunk.length;
      this.budget.used += chunk.length;
    }
  }
  private drop(why: string): void {
    this.dropped = why;
    this.release();
  }
  /** Gives its bytes back to the budget (the exchange, once handed over, is counted by the judge's queue). */
  release(): void {
    this.budget.used -= this.held;
    this.held = 0;
    this.chunks = [];
  }
  bytes(): Buffer | null {
    return this.dropped ? null : Buffer.concat(this.chunks);
  }
}

const VIA = "1.1 api-conformance-proxy";

export class Forwarder {
  private server: Server | null = null;
  private seq = 0;
  private readonly agent: HttpAgent;
  private readonly prefix: string;
  private readonly budget: CaptureBudget;

  constructor(private readonly o: ForwardOptions) {
    this.agent = o.target.protocol === "https:" ? new HttpsAgent({ keepAlive: true, maxSockets: 256 }) : new HttpAgent({ keepAlive: true, maxSockets: 256 });
    this.prefix = o.target.pathname.replace(/\/$/, "");
    this.budget = new CaptureBudget(o.captureBudget);
  }

  async listen(port: number, host: string): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.keepAliveTimeout = 65_000;
    await new Promise<void>((ok, fail) => {
      this.server!.once("error", fail);
      this.server!.listen(port, host, () => ok());
    });
    const a = this.server.address() as AddressInfo;
    return `http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}`;
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    await new Promise<void>((ok) => {
      s.close(() => ok());
      s.closeAllConnections();
    });
    this.agent.destroy();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    if (this.o.intercept?.(req, res)) return;
    const started = performance.now();
    const seq = ++this.seq;
    // To the fraction of a millisecond, on the clock durationMs is measured on: "sent after that was answered" must not
    // depend on two requests falling in one millisecond (answeredAt = at + durationMs).
    const at = performance.timeOrigin + started;
    const url = req.url ?? "/";
    const headers: OutgoingHttpHeaders = {};
    const requestHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined) continue;
      requestHeaders[k] = Array.isArray(v) ? v.join(", ") : v;
      if (!HOP.has(k)) headers[k] = v;
    }
    // Host names the target, whatever the client called the proxy.
    headers.host = this.o.target.host;
    if (this.o.via) headers.via = req.headers.via ? `${req.headers.via}, ${VIA}` : VIA;
    const reqCapture = new Capture(this.o.requestCapture, this.budget);
    const resCapture = new Capture(this.o.responseCapture, this.budget);
    let finished = false;
    let status = 0;
    let responseHeaders = new Headers();
    let upstreamError: string | undefined;
    // Set when the client closed its connection before its answer was whole: the request to the target is then
    // broken off by the proxy, and what that does to the answer is nobody's fault to judge.
    let clientGone = false;

    const finish = (complete: boolean) => {
      if (finished) return;
      finished = true;
      const raw = resCapture.bytes();
      const requestBody = reqCapture.bytes();
      reqCapture.release();
      resCapture.release();
      if (!complete && !upstreamError) return; // the client went away mid-answer: nothing whole to judge
      const d = raw ? decoded(raw, responseHeaders.get("content-encoding"), this.o.responseCapture) : { body: null, why: `${resCapture.dropped} (${resCapture.size} bytes)` };
      const query = new URL(url, "http://proxy").searchParams;
      const auth = requestHeaders.authorization ?? "";
      const ex: Exchange = {
        seq, at, method: req.method ?? "GET", url, path: url.split("?")[0], query, requestHeaders,
        requestBody, status, responseHeaders, responseBody: d.body, unjudged: d.why,
        upstreamError, durationMs: performance.now() - started, key: /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim() ?? null,
      };
      // Handed over before the answer's last byte goes (the judge works elsewhere), so a client that has its answer
      // can ask for the verdict.
      this.o.onExchange(ex);
    };

    const lib = this.o.target.protocol === "https:" ? httpsRequest : httpRequest;
    const up = lib({
      protocol: this.o.target.protocol, hostname: this.o.target.hostname, port: this.o.target.port || undefined,
      method: req.method, path: `${this.prefix}${url}`, headers, agent: this.agent,
    });
    up.setTimeout(this.o.upstreamTimeoutMs, () => up.destroy(new Error(`no answer within ${this.o.upstreamTimeoutMs} ms`)));
    up.on("response", (ur) => {
      status = ur.statusCode ?? 0;
      const raw: string[] = [];
      for (let i = 0; i < ur.rawHeaders.length; i += 2) {
        const name = ur.rawHeaders[i];
        if (HOP.has(name.toLowerCase())) continue;
        raw.push(name, ur.rawHeaders[i + 1]);
        responseHeaders.append(name, ur.rawHeaders[i + 1]);
      }
      if (this.o.via) raw.push("Via", VIA);
      // An event stream may be silent for long between events: only its opening is timed.
      if (isEventStreamType(ur.headers["content-type"])) up.setTimeout(0);
      res.writeHead(status, ur.statusMessage, raw);
      ur.on("data", (c: Buffer) => resCapture.add(c));
      ur.on("end", () => finish(true));
      ur.on("error", (err) => {
        if (!clientGone) upstreamError = `the target broke off its answer (${err.message})`;
        res.destroy();
        finish(false);
      });
      ur.pipe(res);
    });
    up.on("error", (err) => {
      if (clientGone) return finish(false);
      upstreamError = `${this.o.target.origin} ${err.message}`;
      if (!res.headersSent) {
        status = 502;
        responseHeaders = new Headers({ "content-type": "application/json" });
        const body = JSON.stringify({ error: { type: "api_error", message: `Bad gateway: the proxy could not get an answer from ${this.o.target.origin} (${(err as NodeJS.ErrnoException).code ?? err.message})` } });
        resCapture.add(Buffer.from(body));
        res.writeHead(502, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...(this.o.via ? { via: VIA } : {}) });
        res.end(body);
      } else res.destroy();
      finish(false);
    });
    // The client went away: so does the request to the target.
    res.on("close", () => {
      if (res.writableFinished) return;
      clientGone = true;
      up.destroy();
    });
    req.on("data", (c: Buffer) => reqCapture.add(c));
    req.pipe(up);
  }
}
