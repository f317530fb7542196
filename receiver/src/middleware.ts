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
  /** Called on every rejection, e.g. for logging. */
  onError?: (reason: VerifyFailureReason | "body_already_parsed" | "invalid_json" | "unsupported_media_type" | "payload_too_large", req: Request) => void;
}

export interface VerifiedWebhook {
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
      const event = String(req.headers["x-webhook-event"] ?? payload.event ?? "");
      req.webhook = { event, payload, rawBody: raw };
      next();
    } catch (err) {
      next(err);
    }
  };
}
