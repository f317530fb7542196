/**
 * The suite's webhook receiver: records every delivery with its raw bytes, answers by policy, and runs over
 * plain HTTP (loopback development URLs) or HTTPS with a certificate generated at run time, whose file the
 * implementer is told to trust. `publicUrl` overrides the URL registered with the service when the receiver
 * is reachable at another address (a tunnel, another host).
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer as createHttp, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttps } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import selfsigned from "selfsigned";
import { CheckFailure, UUID } from "./http.ts";

export interface Delivery {
  at: number;
  /** The path (and query) the service called. */
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  interviewId: string | null;
  /** data.session_id, when a string. */
  sessionId: string | null;
  /** What `observe` read at the moment the delivery arrived (before it was answered), e.g. the REST resource. */
  observed?: unknown;
  /**
   * The earliest the service may have started this attempt (its connection's opening, when this was the first request
   * on it): a receiver timeout runs from there, not from the body's arrival.
   */
  startedAt: number;
  /** When the receiver answered it (a retry's delay runs from the answer that failed). */
  answeredAt?: number;
  /**
   * How late this process may have read it: the longest stall of the suite's own event loop since the delivery before
   * (ms). A time read here can be late by that much through no fault of the service (the suite, its receiver and, in
   * a self-test, the server share the machine), so timing judgements allow for it.
   */
  lagMs: number;
}

/** The longest stall of this process's event loop between two reads (a tick every 10 ms that comes late). */
class LoopStalls {
  private worst = 0;
  private last = performance.now();
  private readonly timer = setInterval(() => {
    const now = performance.now();
    this.worst = Math.max(this.worst, now - this.last - 10);
    this.last = now;
  }, 10);

  constructor() {
    this.timer.unref();
  }

  /** The longest stall since the previous read, the one in progress included. */
  read(): number {
    const worst = Math.max(this.worst, performance.now() - this.last - 10, 0);
    this.worst = 0;
    return Math.round(worst);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export interface ReceiverOptions {
  tls: boolean;
  /** `host:port` to listen on; default 127.0.0.1 on a free port. */
  listen?: string;
  /** The URL the service must call, when not the listening address. */
  publicUrl?: string;
  /** Folder for `ca.pem` (TLS); default a new temporary folder. */
  certDir?: string;
}

/** A policy's answer that is no answer: the connection is closed (reset) as the attempt arrives. */
export const RESET = -1;

/** The path prefix a 3xx answer's Location points under: not the webhook's path. */
export const REDIRECTED = "/redirected";


/**
 * One certificate per folder and host for the whole process: every receiver of a run (checks run side by side, each
 * with its own) serves the same one, so the `ca.pem` the service was told to trust stays the one in use. A second
 * certificate written over it would make a service that reads the file at each attempt distrust the receivers before.
 */
const certificates = new Map<string, Promise<{ pems: { private: string; cert: string }; caFile: string }>>();

function certificate(certDir: string | undefined, host: string | undefined): Promise<{ pems: { private: string; cert: string }; caFile: string }> {
  const key = `${certDir ?? ""}|${host ?? ""}`;
  let made = certificates.get(key);
  if (!made) {
    made = (async () => {
      const pems = await selfsigned.generate([{ name: "commonName", value: "conformance webhook receiver" }], {
        keySize: 2048,
        algorithm: "sha256",
        notAfterDate: new Date(Date.now() + 7 * 86_400_000),
        extensions: [
          { name: "basicConstraints", cA: true },
          { name: "subjectAltName", altNames: [{ type: 2 as const, value: "localhost" }, { type: 7 as const, ip: "127.0.0.1" }, { type: 7 as const, ip: "::1" }, ...(host && !["127.0.0.1", "localhost", "::1"].includes(host) ? [/^[\d.]+$|:/.test(host) ? { type: 7 as const, ip: host } : { type: 2 as const, value: host }] : [])] },
        ],
      });
      const dir = certDir ?? mkdtempSync(join(tmpdir(), "conformance-receiver-"));
      mkdirSync(dir, { recursive: true });
      const caFile = join(dir, "ca.pem");
      writeFileSync(caFile, pems.cert);
      return { pems, caFile };
    })();
    certificates.set(key, made);
    // A failed generation is not kept: the next receiver tries again.
    made.catch(() => certificates.delete(key));
    return made;
  }
  // Written again if someone removed it since (a folder emptied between two runs of one process).
  return made.then((c) => (existsSync(c.caFile) ? c : (mkdirSync(dirname(c.caFile), { recursive: true }), writeFileSync(c.caFile, c.pems.cert), c)));
}

export class Receiver {
  readonly deliveries: Delivery[] = [];
  /** TLS handshakes that failed (the service did not trust the certificate, or spoke plain HTTP). */
  readonly tlsErrors: string[] = [];
  /**
   * When an attempt was seen lost on its way in: a TLS handshake that failed, or a request whose body never came (the
   * service gave up on it, its own timeout run out while a loaded machine kept the handshake waiting). The service
   * counts such an attempt failed and owes the next; the receiver never sees its event, so a failure of "the retry never
   * came" says how many it saw (they excuse nothing: a service that gives up before it connects leaves nothing here).
   */
  readonly lostAt: number[] = [];
  /** Status to answer for the n-th (1-based) delivery about an interview (RESET: close the connection); 200 by default. */
  policy: (interviewId: string | null, attempt: number) => number = () => 200;
  /** Read before an attempt is answered (e.g. the resource it names, through the REST API), kept as `observed`. */
  observe: ((d: Delivery) => Promise<unknown>) | null = null;
  /** How long to wait before answering an attempt (the slow receiver): 0 answers at once. */
  delay: (interviewId: string | null, attempt: number) => number = () => 0;
  url = "";
  /** PEM file of the certificate (its own CA) when TLS is on. */
  caFile: string | undefined;
  private server!: Server;
  private stalls: LoopStalls | null = null;

  constructor(readonly options: ReceiverOptions) {}

  async start(): Promise<void> {
    const stalls = (this.stalls = new LoopStalls());
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      // When the service may have started this attempt's clock: its connection's opening for the first request on it
      // (a TLS handshake under load takes a while), else now.
      const socket = req.socket as typeof req.socket & { acceptedAt?: number; served?: boolean };
      const startedAt = socket.acceptedAt !== undefined && !socket.served ? socket.acceptedAt : Date.now();
      socket.served = true;
      const chunks: Buffer[] = [];
      let ended = false;
      req.on("close", () => void (ended || this.lostAt.push(Date.now())));
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        ended = true;
        const raw = Buffer.concat(chunks);
        // Deliveries are grouped by interview: its interview_id, or its session_id (the seed's de-duplication key)
        // when interview_id is not a UUID, so one broken field does not hide the whole delivery.
        let interviewId: string | null = null;
        let sessionId: string | null = null;
        try {
          const data = JSON.parse(raw.toString("utf8"))?.data;
          sessionId = typeof data?.session_id === "string" ? data.session_id : null;
          interviewId = typeof data?.interview_id === "string" && UUID.test(data.interview_id) ? data.interview_id : sessionId ?? data?.interview_id ?? null;
        } catch {
          interviewId = null;
        }
        const delivery: Delivery = { at: Date.now(), startedAt, path: req.url ?? "", method: req.method ?? "", headers: req.headers, raw, interviewId, sessionId, lagMs: stalls.read() };
        const attempt = this.deliveries.filter((d) => d.interviewId === interviewId).length + 1;
        const answer = () => {
          if (res.destroyed) return;
          const status = this.policy(interviewId, attempt);
          delivery.answeredAt = Date.now();
          if (status === RESET) return void req.socket.destroy();
          res.statusCode = status;
          // A redirect names where to: a sender that follows it (fetch does by default) and takes the answer there for a
          // delivery sent the event to another URL than the webhook's, and never retried the 3xx. What arrives there is
          // recorded on its own path, never as an attempt of the webhook's.
          if (status >= 300 && status < 400) res.setHeader("location", new URL(`${REDIRECTED}${req.url ?? "/"}`, this.url).toString());
          // A rate limit or an outage names a wait far past every retry's delay: the seed's schedule is fixed (10 s, 1
          // min, 5 min), so a sender that waits the receiver's Retry-After out instead misses its retries.
          if (status === 429 || status === 503) res.setHeader("retry-after", "3600");
          res.end();
        };
        const wait = this.delay(interviewId, attempt);
        const record = () => {
          this.deliveries.push(delivery);
          if (wait > 0) setTimeout(answer, wait);
          else answer();
        };
        const observe = this.observe;
        if (!observe) return record();
        // Recorded once the observation is in, so a reader of `deliveries` always sees it with what was observed.
        observe(delivery)
          .catch((err) => ({ error: String(err) }))
          .then((seen) => {
            delivery.observed = seen;
            record();
          });
      });
    };
    const [host, portText] = splitListen(this.options.listen);
    if (this.options.tls) {
      const { pems, caFile } = await certificate(this.options.certDir, host);
      this.caFile = caFile;
      const server = createHttps({ key: pems.private, cert: pems.cert }, handler);
      server.on("tlsClientError", (err) => {
        this.tlsErrors.push(err.message);
        this.lostAt.push(Date.now());
      });
      this.server = server;
    } else {
      this.server = createHttp(handler);
    }
    this.server.on("connection", (socket: { acceptedAt?: number }) => void (socket.acceptedAt = Date.now()));
    // An idle connection is kept open well past 5 s: Node's HTTP clients drop their idle sockets at 5 s, Node's server
    // closes them at 5 s too, and a service that reuses one just as the receiver closes it loses an attempt the
    // receiver never sees (a retry counted by the service, missing here). A wait between attempts ends nothing here.
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(Number(portText ?? 0), host ?? "127.0.0.1", resolve);
    });
    const { port, address } = this.server.address() as AddressInfo;
    const shown = address.includes(":") ? `[${address}]` : address;
    this.url = this.options.publicUrl ?? `${this.options.tls ? "https" : "http"}://${shown}:${port}/hook`;
  }

  of(interviewId: string): Delivery[] {
    return this.deliveries.filter((d) => d.interviewId === interviewId || d.sessionId === interviewId);
  }

  async waitFor(what: string, ready: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ready()) {
      if (Date.now() > deadline) throw new CheckFailure(`timed out after ${timeoutMs} ms waiting for ${what}`, {});
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  stop(): Promise<void> {
    this.stalls?.stop();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function splitListen(listen: string | undefined): [string | undefined, string | undefined] {
  if (!listen) return [undefined, undefined];
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(listen);
  return m ? [m[1] || undefined, m[2]] : [listen, undefined];
}
