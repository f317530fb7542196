/**
 * Express middleware for a webhook endpoint: reads the raw bytes itself, verifies the signature BEFORE
 * parsing, then parses and hands `req.webhook = {event, payload, rawBody}` to the next handler.
 * Mount it before any JSON body parser: a body another parser already consumed cannot be verified, and is
 * rejected with a reason that says so rather than re-serialised (which would not verify anyway).
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { InterviewCompletedEvent, VerifyFailureReason } from "./types.ts";
import { REASON_TEXT, verifyWebhookSignature } from "./verify.ts";

export interface WebhookMiddlewareOptions {
  /** The signing secret, or several during a rotation. */
  secrets: string | readonly string[];
  /** Largest body accepted, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * Reject deliveries whose signed `timestamp` is further than this from now (replay protection); off by default.
   * Retries resend the first attempt's bytes, timestamp included, up to 6 min 10 s later (plus timeouts), so keep it
   * above the retry schedule: 10 minutes (600_000) is a sound choice.
   */
  toleranceMs?: number;
  /** Clock for the tolerance check (tests). */
  now?: () => number;
  /** Called on every rejection, e.g. for logging. */
  onError?: (reason: VerifyFailureReason | "body_already_parsed" | "invalid_json" | "invalid_payload" | "stale_timestamp" | "unsupported_media_type" | "payload_too_large", req: Request) => void;
}

export interface VerifiedWebhook {
  /** The event type from the signed payload (never from the unsigned X-Webhook-Event header). */
  event: string;
  payload: InterviewCompletedEvent;
  rawBody: Buffer;
}

declare module "express-serve-static-core" {
  interface Request {
    webhook?: VerifiedWebhook;
  }
}

function reject(res: Response, status: number, type: string, message: string): void {
  res.status(status).type("application/json").send(JSON.stringify({ error: { type, message } }));
}

function readRaw(req: Request, limit: number): Promise<Buffer | "too_large"> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners("data");
        req.resume();
        resolve("too_large");
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export function webhookMiddleware(options: WebhookMiddlewareOptions): RequestHandler {
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  // Fail at start-up, not on the first delivery, when the secrets are unusable.
  const secrets = typeof options.secrets === "string" ? [options.secrets] : [...options.secrets];
  if (secrets.length === 0 || secrets.some((s) => !s)) throw new Error("webhookMiddleware: give at least one non-empty signing secret");

  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      let raw: Buffer;
      if (Buffer.isBuffer(req.body)) raw = req.body; // express.raw() ran first: those are the exact bytes
      else if (req.body !== undefined || req.readableEnded) {
        options.onError?.("body_already_parsed", req);
        return reject(res, 500, "receiver_misconfigured", "The body was parsed before signature verification; mount webhookMiddleware before express.json()");
      } else {
        if (!req.is("application/json")) {
          options.onError?.("unsupported_media_type", req);
          return reject(res, 415, "unsupported_media_type", "Content-Type must be application/json");
        }
        const read = await readRaw(req, limit);
        if (read === "too_large") {
          options.onError?.("payload_too_large", req);
          return reject(res, 413, "payload_too_large", `Body exceeds ${limit} bytes`);
        }
        raw = read;
      }
      const verdict = verifyWebhookSignature(raw, req.headers["x-webhook-signature"], secrets);
      if (!verdict.ok) {
        options.onError?.(verdict.reason, req);
        return reject(res, 401, "invalid_signature", REASON_TEXT[verdict.reason]);
      }
      let payload: InterviewCompletedEvent;
      try {
        payload = JSON.parse(raw.toString("utf8")) as InterviewCompletedEvent;
      } catch {
        options.onError?.("invalid_json", req);
        return reject(res, 400, "invalid_json", "Body is not valid JSON");
      }
      // Everything below comes from the signed bytes; the X-Webhook-Event header is not signed and is not trusted.
      if (payload === null || typeof payload !== "object" || Array.isArray(payload) || typeof payload.event !== "string") {
        options.onError?.("invalid_payload", req);
        return reject(res, 400, "invalid_payload", "The signed body is not an event object with an `event` field");
      }
      if (options.toleranceMs !== undefined) {
        const sent = Date.parse(String(payload.timestamp));
        const now = (options.now ?? Date.now)();
        if (!Number.isFinite(sent) || Math.abs(now - sent) > options.toleranceMs) {
          options.onError?.("stale_timestamp", req);
          return reject(res, 401, "stale_timestamp", `The signed timestamp ${JSON.stringify(payload.timestamp)} is more than ${options.toleranceMs} ms from now`);
        }
      }
      req.webhook = { event: payload.event, payload, rawBody: raw };
      next();
    } catch (err) {
      next(err);
    }
  };
}
