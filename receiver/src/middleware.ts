/**
 * Express middleware for a webhook endpoint: reads the raw bytes itself, verifies the signature BEFORE
 * parsing, then parses and hands `req.webhook = {event, payload, rawBody}` to the next handler
 * (`verifiedWebhook(req)` reads it typed). Mount it before any JSON body parser: a body another parser already
 * consumed cannot be verified, and is rejected with a reason that says so rather than re-serialised.
 *
 * Typed structurally (the few members of Node's request and response it uses), so a project compiles without
 * `@types/express`; Express's own `Request`, `Response` and `NextFunction` fit these shapes, and so do plain
 * `node:http` ones.
 */
import { checkSignedEvent, concatBytes, errorBody, isJsonContentType, type RejectionReason } from "./event.ts";
import type { InterviewCompletedEvent, VerifyFailureReason } from "./types.ts";
import { REASON_TEXT, verifyWebhookSignature } from "./verify.ts";

/** What the middleware reads of a request: Node's IncomingMessage (and Express's Request) has all of it. */
export interface WebhookRequestLike {
  headers: Record<string, string | string[] | undefined>;
  /** Set by a body parser that ran first: a Uint8Array from `express.raw()` is used as is. */
  body?: unknown;
  readableEnded?: boolean;
  on(event: string, listener: (...args: any[]) => void): unknown;
  removeAllListeners(event?: string): unknown;
  resume(): unknown;
  webhook?: VerifiedWebhook;
}

/** What it writes on a response: Node's ServerResponse (and Express's Response) has all of it. */
export interface WebhookResponseLike {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

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
  onError?: (reason: VerifyFailureReason | RejectionReason, req: WebhookRequestLike) => void;
}

export interface VerifiedWebhook {
  /** The event type from the signed payload (never from the unsigned X-Webhook-Event header). */
  event: string;
  payload: InterviewCompletedEvent;
  rawBody: Uint8Array;
}

/** The verified delivery the middleware attached to `req`; throws when the middleware did not run on this route. */
export function verifiedWebhook(req: object): VerifiedWebhook {
  const webhook = (req as WebhookRequestLike).webhook;
  if (!webhook) throw new Error("verifiedWebhook: no verified delivery on this request; mount webhookMiddleware on the route first");
  return webhook;
}

function reject(res: WebhookResponseLike, status: number, type: string, message: string): void {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.end(errorBody(type, message));
}

function readRaw(req: WebhookRequestLike, limit: number): Promise<Uint8Array | "too_large"> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    req.on("data", (chunk: Uint8Array) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners("data");
        req.resume();
        resolve("too_large");
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(concatBytes(chunks, size)));
    req.on("error", reject);
  });
}

export function webhookMiddleware(options: WebhookMiddlewareOptions): (req: WebhookRequestLike, res: WebhookResponseLike, next: (err?: unknown) => void) => Promise<void> {
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  // Fail at start-up, not on the first delivery, when the secrets are unusable.
  const secrets = typeof options.secrets === "string" ? [options.secrets] : [...options.secrets];
  if (secrets.length === 0 || secrets.some((s) => !s)) throw new Error("webhookMiddleware: give at least one non-empty signing secret");

  return async (req, res, next) => {
    try {
      let raw: Uint8Array;
      if (req.body instanceof Uint8Array) raw = req.body; // express.raw() ran first: those are the exact bytes
      else if (req.body !== undefined || req.readableEnded) {
        options.onError?.("body_already_parsed", req);
        return reject(res, 500, "receiver_misconfigured", "The body was parsed before signature verification; mount webhookMiddleware before express.json()");
      } else {
        if (!isJsonContentType(req.headers["content-type"])) {
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
      const checked = checkSignedEvent(raw, options);
      if (!checked.ok) {
        options.onError?.(checked.reason, req);
        return reject(res, checked.status, checked.reason, checked.message);
      }
      req.webhook = { event: checked.event, payload: checked.payload, rawBody: raw };
      next();
    } catch (err) {
      next(err);
    }
  };
}
