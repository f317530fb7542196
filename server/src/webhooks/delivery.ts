/**
 * One HTTP POST of a webhook body to a receiver, with node:http/https rather than fetch: fetch cannot bound
 * how much of the answer is buffered per socket, and its pooled dispatcher keeps sockets alive; here every
 * attempt gets its own socket (`agent: false`) that is destroyed as soon as the answer is known.
 *
 * A receiver can never hold server resources for long: the timeout covers connect + response headers, at
 * most MAX_RESPONSE_BYTES of the answer are read (the rest is never buffered), and the socket is destroyed
 * when the timeout fires, when the byte budget is spent or when the answer ends.
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { createSecureContext, rootCertificates, type SecureContext } from "node:tls";
import { resolveReceiver, type AddressPolicy } from "./address-policy.ts";

/** Enough to see a short error message in a debugger; a 50 MB answer stops here. */
export const MAX_RESPONSE_BYTES = 4096;

export const USER_AGENT = "ProjectDataAPI-Webhooks/1.0 (reference server)";

/**
 * The TLS context trusting the system's roots and an extra CA, built once per CA text: building one parses every root
 * certificate (24 ms of CPU here, idle), and one per attempt stalled the process for seconds when a hundred completions
 * were delivered at once. Keyed by the text, so a CA file rewritten between attempts is trusted at the next one.
 */
let trusted: { ca: string; context: SecureContext } | null = null;
function contextTrusting(ca: string): SecureContext {
  if (trusted?.ca !== ca) trusted = { ca, context: createSecureContext({ ca: [...rootCertificates, ca] }) };
  return trusted.context;
}

export interface PostRequest {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Aborts the attempt (server shutdown); the outcome is then `aborted`. */
  signal?: AbortSignal;
  /** Extra trusted CA certificates (PEM) for https receivers, on top of the system's. */
  extraCa?: string;
  /** When given, the host is resolved and checked first, and the connection is pinned to the checked address. */
  addressPolicy?: AddressPolicy;
}

export type PostOutcome =
  /** The receiver answered with this status (any status, 2xx or not). */
  | { kind: "answered"; status: number }
  /** No answer within timeoutMs. */
  | { kind: "timeout" }
  /** The connection failed before an answer: `code` is the errno code (ECONNREFUSED, ECONNRESET...), never a message with an address. */
  | { kind: "connection_error"; code: string }
  /** The receiver's address is not allowed (private, link-local, metadata...); nothing was sent. */
  | { kind: "blocked"; reason: string }
  /** Stopped from our side (shutdown). */
  | { kind: "aborted" };

const TIMEOUT = Symbol("timeout");

/** Never rejects: every failure is an outcome, so nothing can escape into a caller that forgot a catch. */
export async function postWebhook(req: PostRequest): Promise<PostOutcome> {
  let pinned: LookupFunction | undefined;
  if (req.addressPolicy) {
    let host: string;
    try {
      host = new URL(req.url).hostname;
    } catch {
      return { kind: "connection_error", code: "invalid_url" };
    }
    const resolved = await resolveReceiver(host, req.addressPolicy);
    if (!resolved.ok) return { kind: "blocked", reason: resolved.reason };
    const { address, family } = resolved;
    // The socket connects to the address just checked, whatever DNS would answer a moment later.
    pinned = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
      options?.all ? callback(null, [{ address, family }]) : callback(null, address, family)) as unknown as LookupFunction;
  }
  return post(req, pinned);
}

function post(req: PostRequest, lookup: LookupFunction | undefined): Promise<PostOutcome> {
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };

    let target: URL;
    try {
      target = new URL(req.url);
    } catch {
      return settle({ kind: "connection_error", code: "invalid_url" });
    }
    const transport = target.protocol === "https:" ? https : target.protocol === "http:" ? http : null;
    if (!transport) return settle({ kind: "connection_error", code: `unsupported_protocol ${target.protocol}` });
    if (req.signal?.aborted) return settle({ kind: "aborted" });

    const controller = new AbortController();
    const onOuterAbort = () => controller.abort();
    req.signal?.addEventListener("abort", onOuterAbort, { once: true });
    // Real time on purpose: this bounds a network wait, which happens in real time even under a test's fake clock.
    const timer = setTimeout(() => controller.abort(TIMEOUT), req.timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onOuterAbort);
    };

    let request: http.ClientRequest;
    try {
      request = transport.request(target, {
        method: "POST",
        agent: false,
        signal: controller.signal,
        headers: { ...req.headers, "Content-Length": String(req.body.length), "User-Agent": USER_AGENT, Connection: "close" },
        ...(req.extraCa && transport === https ? { secureContext: contextTrusting(req.extraCa) } : {}),
        ...(lookup ? { lookup } : {}),
      });
    } catch (err) {
      cleanup();
      return settle({ kind: "connection_error", code: errorCode(err) });
    }

    request.on("response", (res) => {
      // The status is the answer; the body is read only up to the budget, then the socket goes.
      settle({ kind: "answered", status: res.statusCode ?? 0 });
      let read = 0;
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read >= MAX_RESPONSE_BYTES) request.destroy();
      });
      res.on("end", () => request.destroy());
      res.on("error", () => request.destroy());
    });
    request.on("error", (err) => {
      if (controller.signal.aborted) settle(controller.signal.reason === TIMEOUT ? { kind: "timeout" } : { kind: "aborted" });
      else settle({ kind: "connection_error", code: errorCode(err) });
      request.destroy();
    });
    request.on("close", cleanup);
    request.end(req.body);
  });
}

/** The errno-style code only: messages carry addresses and ports, which the delivery log must not show. */
function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[A-Z0-9_]+$/.test(code) ? code : "failed";
}
