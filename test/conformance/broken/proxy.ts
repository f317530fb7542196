/**
 * A deliberately broken implementation: an HTTP proxy in front of the real reference server that applies one
 * mutation to requests or responses. Keeps the server's code free of fault switches, and breaks it the way
 * real implementations break (an off-by-one, a leak, a wrong signature).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { send, textOf } from "../../../conformance/src/transport.ts";

export interface Exchange {
  method: string;
  path: string;
  query: URLSearchParams;
  requestHeaders: Record<string, string>;
  requestBody: any;
  status: number;
  headers: Record<string, string>;
  body: any;
  /** Calls the real server directly (e.g. with another key). */
  upstream(path: string, init?: { method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: any; headers: Record<string, string> }>;
}

export interface Mutation {
  name: string;
  /** Rewrites the request before it is forwarded. */
  request?(ex: Pick<Exchange, "method" | "path" | "query" | "requestHeaders" | "requestBody">, proxy: BrokenProxy): void;
  /** Rewrites the answer before it reaches the suite. */
  response?(ex: Exchange, proxy: BrokenProxy): void | Promise<void>;
}

const HOP = new Set(["content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding"]);
const plain = (h: IncomingHttpHeaders | Headers): Record<string, string> => {
  const out: Record<string, string> = {};
  const entries = h instanceof Headers ? [...h.entries()] : Object.entries(h);
  for (const [k, v] of entries) if (v !== undefined && !HOP.has(k.toLowerCase())) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : String(v);
  return out;
};

export class BrokenProxy {
  private server!: Server;
  origin = "";
  /** Free-form memory for mutations (e.g. items seen, the webhook secret). */
  readonly memory = new Map<string, any>();

  constructor(private readonly upstreamOrigin: string, readonly mutation: Mutation) {}

  get baseUrl(): string {
    return `${this.origin}/api`;
  }

  async upstream(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
    // node:http rather than fetch: half the CPU per request, and every run of the variants files sends thousands.
    const res = await send(`${this.upstreamOrigin}${path}`, { method: init.method ?? "GET", headers: init.headers, body: init.body, timeoutMs: 60_000 });
    const text = textOf(res.bytes);
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    return { status: res.status, body, headers: plain(res.headers) };
  }

  async start(): Promise<void> {
    this.server = createServer(async (req, res) => {
      try {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const raw = Buffer.concat(chunks).toString("utf8");
        const url = new URL(req.url ?? "/", "http://proxy");
        const ex0 = { method: req.method ?? "GET", path: url.pathname, query: url.searchParams, requestHeaders: plain(req.headers), requestBody: raw ? safeParse(raw) : undefined };
        this.mutation.request?.(ex0, this);
        const body = ex0.requestBody === undefined ? undefined : typeof ex0.requestBody === "string" ? ex0.requestBody : JSON.stringify(ex0.requestBody);
        const qs = ex0.query.toString();
        // An event stream never ends: it is passed through as it comes (no mutation sees it), so a check that asks
        // for one gets its headers at once instead of a proxy waiting for a body that never ends.
        if (ex0.method === "GET" && ex0.path.endsWith("/_sim/events")) {
          const controller = new AbortController();
          res.on("close", () => controller.abort());
          const up = await fetch(`${this.upstreamOrigin}${ex0.path}${qs ? `?${qs}` : ""}`, { headers: ex0.requestHeaders, signal: controller.signal });
          res.writeHead(up.status, plain(up.headers));
          try {
            for await (const chunk of up.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
          } catch {
            // the client went away, or the upstream ended the stream
          }
          res.end();
          return;
        }
        const answer = await this.upstream(`${ex0.path}${qs ? `?${qs}` : ""}`, { method: ex0.method, headers: ex0.requestHeaders, body: ["GET", "HEAD"].includes(ex0.method) ? undefined : body });
        const ex: Exchange = { ...ex0, status: answer.status, headers: answer.headers, body: answer.body, upstream: (p, i) => this.upstream(p, i) };
        await this.mutation.response?.(ex, this);
        res.writeHead(ex.status, ex.headers);
        res.end(ex.body === undefined ? "" : typeof ex.body === "string" ? ex.body : JSON.stringify(ex.body));
      } catch (err) {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(`proxy error: ${(err as Error).message}`);
      }
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function safeParse(raw: string): any {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
