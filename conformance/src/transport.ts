/**
 * One HTTP exchange on node:http(s), sent as `fetch` would send it: the suite's requests went through undici's fetch,
 * which took about twice the CPU per request (its WHATWG streams, AbortSignal and Headers machinery; 380-480 µs against
 * 200 µs on this machine, and the suite sends hundreds of thousands in CI). What a server sees is kept: `accept: *\/*`
 * unless the caller sets Accept, `text/plain;charset=UTF-8` for a string body without a Content-Type, a Content-Length
 * for every body (and 0 for a POST, PUT or PATCH without one), the URL parsed as WHATWG parses it, no redirect followed. It
 * asks for no compression (fetch asked for gzip and undid it); an answer compressed anyway is decoded, and its text
 * read as fetch reads it (UTF-8, a leading BOM dropped, bad bytes replaced).
 */
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { constants } from "node:buffer";
import { request as httpsRequest } from "node:https";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";

export interface Exchange {
  status: number;
  headers: Headers;
  /** The body, decoded from its Content-Encoding; empty when `keepBody` said not to read it. */
  bytes: Buffer;
}

export interface SendInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The whole exchange's bound: connecting, sending and reading the answer. */
  timeoutMs: number;
  /** Whether to read the body (false: the answer is judged by its status and headers; the connection is closed). */
  keepBody?: (headers: Headers) => boolean;
}

/** The error a request past its time fails with: fetch's own words (reports and the mutation runner read them). */
export class RequestTimeout extends Error {
  override name = "TimeoutError";
  constructor(ms: number) {
    super(`The operation was aborted due to timeout (${ms} ms)`);
  }
}

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);
const NORMALISED = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);
/** The methods fetch (undici) sends `content-length: 0` for when there is no body. */
const EXPECTS_BODY = new Set(["POST", "PUT", "PATCH"]);

export async function send(url: string, init: SendInit): Promise<Exchange> {
  const method = methodOf(init.method);
  try {
    return await attempt(url, method, init);
  } catch (err) {
    // A kept-alive connection the server closed while idle fails as it is reused (node's documentation, at
    // request.reusedSocket): an idempotent request is sent again on a fresh one (RFC 9110, 9.2.2); a POST or PATCH
    // the server may have acted on is not, and its failure is reported.
    if ((err as { reusedSocket?: boolean }).reusedSocket && IDEMPOTENT.has(method.toUpperCase())) return attempt(url, method, init);
    throw err;
  }
}

/** fetch's normalisation: these six in any case are sent in capitals, any other method as it is written. */
function methodOf(written = "GET"): string {
  return NORMALISED.has(written.toUpperCase()) ? written.toUpperCase() : written;
}

function attempt(url: string, method: string, init: SendInit): Promise<Exchange> {
  const target = new URL(url);
  const headers: OutgoingHttpHeaders = {};
  const given = new Set<string>();
  for (const [k, v] of Object.entries(init.headers ?? {})) {
    headers[k] = v;
    given.add(k.toLowerCase());
  }
  if (!given.has("accept")) headers.accept = "*/*";
  const body = typeof init.body === "string" ? Buffer.from(init.body, "utf8") : init.body;
  if (typeof init.body === "string" && !given.has("content-type")) headers["content-type"] = "text/plain;charset=UTF-8";
  if (body !== undefined) headers["content-length"] = String(body.byteLength);
  else if (EXPECTS_BODY.has(method)) headers["content-length"] = "0";
  const request = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Exchange>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, value?: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value!);
    };
    const req = request(target, { method, headers }, (res) => {
      const answer = headersOf(res);
      if (init.keepBody && !init.keepBody(answer)) {
        res.destroy();
        return finish(null, { status: res.statusCode ?? 0, headers: answer, bytes: Buffer.alloc(0) });
      }
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", (e) => finish(e));
      res.on("end", () => {
        try {
          finish(null, { status: res.statusCode ?? 0, headers: answer, bytes: decode(Buffer.concat(chunks), answer.get("content-encoding")) });
        } catch (e) {
          finish(new Error(`the answer's body could not be decoded (${(e as Error).message})`));
        }
      });
    });
    const timer = setTimeout(() => req.destroy(new RequestTimeout(init.timeoutMs)), init.timeoutMs);
    req.on("error", (e) => finish(Object.assign(e, { reusedSocket: req.reusedSocket && (e as NodeJS.ErrnoException).code === "ECONNRESET" })));
    // Without a length node sends a method it does not know (a probe's PURGE) chunked; fetch sends it with no body at all.
    if (body === undefined && !EXPECTS_BODY.has(method)) req.useChunkedEncodingByDefault = false;
    req.end(body);
  });
}

/** The answer's headers as fetch gives them: repeated fields joined, names in any case. */
function headersOf(res: IncomingMessage): Headers {
  const out = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) out.append(raw[i], raw[i + 1]);
  return out;
}

function decode(bytes: Buffer, encoding: string | null): Buffer {
  const codings = (encoding ?? "").toLowerCase().split(",").map((c) => c.trim()).filter((c) => c && c !== "identity");
  let out = bytes;
  for (const coding of codings.reverse()) {
    const undone = undoCoding(out, coding);
    if (!undone) throw new Error(`unknown Content-Encoding ${coding}`);
    out = undone;
  }
  return out;
}

/** One content coding undone, at most `maxBytes` out (zlib throws past it); null for a coding it does not know. */
export function undoCoding(bytes: Buffer, coding: string, maxBytes: number = constants.MAX_LENGTH): Buffer | null {
  const bound = { maxOutputLength: maxBytes };
  if (coding === "gzip" || coding === "x-gzip") return gunzipSync(bytes, bound);
  if (coding === "deflate") return inflateSync(bytes, bound);
  if (coding === "br") return brotliDecompressSync(bytes, bound);
  return null;
}

/** A body's text as fetch's `text()` reads it: UTF-8, a leading BOM dropped, invalid bytes replaced. */
const utf8 = new TextDecoder();
export const textOf = (bytes: Buffer): string => utf8.decode(bytes);
