/**
 * What happens after the signature matched, the same for every framework: the signed bytes must be a JSON event
 * object, and with a tolerance its signed `timestamp` must be recent. Everything comes from the signed bytes; the
 * `X-Webhook-Event` header is not signed and is not trusted.
 */
import type { InterviewCompletedEvent } from "./types.ts";

/** Why a delivery was refused after (or before) the signature check, with the status a receiver answers. */
export type RejectionReason = "body_already_parsed" | "invalid_json" | "invalid_payload" | "stale_timestamp" | "unsupported_media_type" | "payload_too_large";

export interface EventCheckOptions {
  /** Reject a signed `timestamp` further than this from now (replay protection); off when undefined. */
  toleranceMs?: number;
  now?: () => number;
}

export type EventCheck =
  | { ok: true; event: string; payload: InterviewCompletedEvent }
  | { ok: false; status: 400 | 401; reason: "invalid_json" | "invalid_payload" | "stale_timestamp"; message: string };

const decoder = new TextDecoder("utf-8");

export function checkSignedEvent(raw: Uint8Array, options: EventCheckOptions = {}): EventCheck {
  let payload: InterviewCompletedEvent;
  try {
    payload = JSON.parse(decoder.decode(raw)) as InterviewCompletedEvent;
  } catch {
    return { ok: false, status: 400, reason: "invalid_json", message: "Body is not valid JSON" };
  }
  if (payload === null || typeof payload !== "object" || Array.isArray(payload) || typeof payload.event !== "string") {
    return { ok: false, status: 400, reason: "invalid_payload", message: "The signed body is not an event object with an `event` field" };
  }
  if (options.toleranceMs !== undefined) {
    const sent = Date.parse(String(payload.timestamp));
    const now = (options.now ?? Date.now)();
    if (!Number.isFinite(sent) || Math.abs(now - sent) > options.toleranceMs) {
      return { ok: false, status: 401, reason: "stale_timestamp", message: `The signed timestamp ${JSON.stringify(payload.timestamp)} is more than ${options.toleranceMs} ms from now` };
    }
  }
  return { ok: true, event: payload.event, payload };
}

/** Whether a Content-Type header names JSON (`application/json`, parameters allowed). */
export const isJsonContentType = (value: unknown): boolean => /^application\/json\s*(;|$)/i.test(String(value ?? ""));

/** The chunks of a body read piece by piece, as one array of `size` bytes. */
export function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The JSON error body every rejection is answered with. */
export const errorBody = (type: string, message: string): string => JSON.stringify({ error: { type, message } });
