/**
 * How the CLI's client-team commands reach a sandbox, local or remote: `--base-url` (up to and including `/api`) and
 * `--api-key`, or the environment (SANDBOX_BASE_URL, SANDBOX_API_KEY). On the local default the Acme fixture key
 * is assumed, so `api-sandbox trigger interview.completed` works right after `api-sandbox`.
 */
export interface RemoteOptions {
  baseUrl?: string;
  apiKey?: string;
}

export const LOCAL_BASE = "http://127.0.0.1:4010/api";
const ACME = "svc_live_acme_0123456789abcdef0123456789abcdef";

/** Exit codes of the client-team commands (server/README.md): one per cause, so scripts can tell them apart. */
export const EXIT = { ok: 0, notAcknowledged: 1, usage: 2, noReceiver: 3, refused: 4, timeout: 5, unreachable: 6 } as const;

/** A receiver's answer that acknowledges an event: a 2xx status (a forward without an answer carries null or a reason). */
export const acknowledged = (status: unknown): boolean => typeof status === "number" && status >= 200 && status < 300;

export class CliError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}

/** The sandbox answered with an error envelope: its status travels with the message. */
export class AnswerError extends CliError {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

export interface Remote {
  baseUrl: string;
  apiKey: string;
  /** A JSON call; an error envelope becomes a CliError naming the status and message. */
  call<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  headers(): Record<string, string>;
}

/** Every URL option takes http(s) URLs only; anything else is a usage error (exit 2) naming the option. */
export function checkHttpUrl(option: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${option} must be an http:// or https:// URL, got "${value}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new CliError(`${option} must be an http:// or https:// URL, got "${value}" (${url.protocol} is not supported)`);
  return url;
}

export function remote(o: RemoteOptions): Remote {
  const baseUrl = (o.baseUrl ?? process.env.SANDBOX_BASE_URL ?? LOCAL_BASE).replace(/\/+$/, "");
  checkHttpUrl(o.baseUrl !== undefined ? "--base-url" : "SANDBOX_BASE_URL", baseUrl);
  const local = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//.test(`${baseUrl}/`);
  const apiKey = o.apiKey ?? process.env.SANDBOX_API_KEY ?? (local ? ACME : undefined);
  if (!apiKey) throw new CliError("give --api-key (or SANDBOX_API_KEY): a project API key of that sandbox");
  const headers = () => ({ authorization: `Bearer ${apiKey}` });
  return {
    baseUrl,
    apiKey,
    headers,
    async call(method, path, body) {
      let res: Response;
      try {
        res = await fetch(`${baseUrl}${path}`, { method, headers: { ...headers(), ...(body === undefined ? {} : { "content-type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
      } catch (err) {
        throw new CliError(`cannot reach the sandbox at ${baseUrl}: ${(err as Error).cause ? String((err as { cause: Error }).cause.message) : (err as Error).message}`, EXIT.unreachable);
      }
      const text = await res.text();
      const json = text ? JSON.parse(text) : undefined;
      if (!res.ok) throw new AnswerError(`${method} ${path} answered ${res.status}: ${json?.error?.message ?? text.slice(0, 200)}`, res.status);
      return json;
    },
  };
}

/** `HH:MM:SS.mmm` of an ISO time, or of now. */
export const clock = (at?: string | null) => (at ? new Date(at) : new Date()).toISOString().slice(11, 23);

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
