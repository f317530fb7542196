/**
 * The framework-neutral receiver: Web Crypto and the Web `Request`/`Response` only, so it runs wherever those exist
 * (Node 20+, Next.js route handlers on the Node or Edge runtime, Hono, Deno, Bun, Cloudflare Workers).
 *
 *   export async function POST(request: Request) {
 *     const result = await verifyWebhookRequest(request, { secrets: process.env.WEBHOOK_SECRET! });
 *     if (!result.ok) return rejectionResponse(result);
 *     ...; return new Response(null, { status: 204 });
 *   }
 */
import { checkSignedEvent, concatBytes, errorBody, isJsonContentType, type EventCheckOptions } from "./event.ts";
import type { InterviewCompletedEvent, VerifyFailureReason, VerifyResult } from "./types.ts";
import { REASON_TEXT } from "./reasons.ts";

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;
const encoder = new TextEncoder();

const hexToBytes = (hex: string) => Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16));

/**
 * Checks `sha256=<hex>` against the raw bytes with each secret (several during a rotation). Web Crypto's
 * `verify` compares in constant time; every secret is tried, so timing does not reveal which one matched.
 */
export async function verifyWebhookBytes(
  rawBody: Uint8Array | string,
  signatureHeader: string | readonly string[] | null | undefined,
  secrets: string | readonly string[],
): Promise<VerifyResult> {
  const list = typeof secrets === "string" ? [secrets] : [...secrets];
  if (list.length === 0) return fail("no_secrets");
  if (list.some((s) => typeof s !== "string" || s.length === 0)) return fail("empty_secret");
  if (signatureHeader === undefined || signatureHeader === null || signatureHeader === "") return fail("missing_signature");
  if (typeof signatureHeader !== "string") return fail(signatureHeader.length === 0 ? "missing_signature" : "malformed_signature");
  const m = SIGNATURE.exec(signatureHeader);
  if (!m) return fail("malformed_signature");
  const given = hexToBytes(m[1]);
  // A copy into a plain ArrayBuffer: Web Crypto's typings refuse views that may sit on a SharedArrayBuffer.
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : new Uint8Array(rawBody);
  let matched = -1;
  for (const [i, secret] of list.entries()) {
    const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    if ((await crypto.subtle.verify("HMAC", key, given, body)) && matched < 0) matched = i;
  }
  return matched >= 0 ? { ok: true, secretIndex: matched } : fail("signature_mismatch");
}

const fail = (reason: VerifyFailureReason): VerifyResult => ({ ok: false, reason });

export interface VerifyRequestOptions extends EventCheckOptions {
  /** The signing secret, or several during a rotation. */
  secrets: string | readonly string[];
  /** Largest body accepted, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
}

export type WebhookVerification =
  | { ok: true; event: string; payload: InterviewCompletedEvent; rawBody: Uint8Array; secretIndex: number }
  | { ok: false; status: 400 | 401 | 413 | 415; reason: VerifyFailureReason | "invalid_json" | "invalid_payload" | "stale_timestamp" | "unsupported_media_type" | "payload_too_large"; message: string };

/** Reads a bounded body without trusting Content-Length. */
async function readBounded(request: Request, limit: number): Promise<Uint8Array | "too_large"> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return "too_large";
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}

/** Verifies a delivery given as a Web `Request`: the signature over the exact bytes first, then the signed event. */
export async function verifyWebhookRequest(request: Request, options: VerifyRequestOptions): Promise<WebhookVerification> {
  if (!isJsonContentType(request.headers.get("content-type"))) return { ok: false, status: 415, reason: "unsupported_media_type", message: "Content-Type must be application/json" };
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  const raw = await readBounded(request, limit);
  if (raw === "too_large") return { ok: false, status: 413, reason: "payload_too_large", message: `Body exceeds ${limit} bytes` };
  const verdict = await verifyWebhookBytes(raw, request.headers.get("x-webhook-signature"), options.secrets);
  if (!verdict.ok) return { ok: false, status: 401, reason: verdict.reason, message: REASON_TEXT[verdict.reason] };
  const checked = checkSignedEvent(raw, options);
  if (!checked.ok) return checked;
  return { ok: true, event: checked.event, payload: checked.payload, rawBody: raw, secretIndex: verdict.secretIndex };
}

/** The answer to a refused delivery: its status and a JSON error body naming the reason. */
export function rejectionResponse(result: Extract<WebhookVerification, { ok: false }>): Response {
  const type = result.status === 401 && result.reason !== "stale_timestamp" ? "invalid_signature" : result.reason;
  return new Response(errorBody(type, result.message), { status: result.status, headers: { "content-type": "application/json" } });
}
