/** One request and its answer as the proxy forwarded them, with what it kept of the bodies to judge. */
import { undoCoding } from "../transport.ts";
import { curlOf } from "../http.ts";

export interface Exchange {
  /** 1, 2, ... in the order requests arrived. */
  seq: number;
  at: number;
  method: string;
  /** Path and query as the client sent them (relative to the proxy's root: /v1/...). */
  url: string;
  path: string;
  query: URLSearchParams;
  requestHeaders: Record<string, string>;
  /** The request body as sent, or null when it was over the capture limit. */
  requestBody: Buffer | null;
  status: number;
  responseHeaders: Headers;
  /** The response body decoded (gzip, deflate, br), or null when over the capture limit or not decodable. */
  responseBody: Buffer | null;
  /** Why the response body could not be judged, when it could not. */
  unjudged?: string;
  /** The upstream's failure, when the proxy answered 502 itself. */
  upstreamError?: string;
  durationMs: number;
  /** The bearer key sent, or null. */
  key: string | null;
  /** The contract operation it is, once matched (the statements a verdict on it can show depend on it). */
  operationId?: string;
  /** When the earliest webhook delivery the relay was still passing on as this exchange ended arrived (none: absent). */
  relayingSince?: number;
}

/** A curl line that replays the request against the proxy's target (keys redacted). */
export function curlOfExchange(target: string, ex: Pick<Exchange, "method" | "url" | "requestHeaders" | "requestBody">): string {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(ex.requestHeaders)) if (k === "authorization" || k === "content-type" || k === "x-public-key") headers[k] = v;
  const body = ex.requestBody && ex.requestBody.length ? ex.requestBody.toString("utf8").slice(0, 4096) : undefined;
  for (const [k, v] of Object.entries(ex.requestHeaders)) if (k.startsWith("x-webhook-")) headers[k] = v;
  return curlOf(/^https?:\/\//.test(ex.url) ? ex.url : `${target}${ex.url}`, ex.method, headers, body);
}

/** The bytes as the client reads them once decoded; `null` with why when they cannot be (bounded by `maxBytes`). */
export function decoded(raw: Buffer, encoding: string | null, maxBytes: number): { body: Buffer | null; why?: string } {
  const e = (encoding ?? "identity").trim().toLowerCase();
  try {
    if (e === "identity" || e === "") return { body: raw };
    const body = undoCoding(raw, e, maxBytes);
    return body ? { body } : { body: null, why: `content-encoding ${e} is not one the proxy decodes` };
  } catch (err) {
    return { body: null, why: `the ${e} body could not be decoded within ${maxBytes} bytes (${(err as Error).message})` };
  }
}

/** A path segment decoded; a malformed escape (`%E0`) names nothing any object is called, so it is kept as sent. */
export function decodedSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The body parsed as JSON, or undefined. */
export function jsonOf(body: Buffer | null): unknown {
  if (!body || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}
