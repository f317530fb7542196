/**
 * `api-sandbox listen --forward-to URL`: reads the sandbox's delivery stream (Server-Sent Events from
 * `GET /_sim/events`) and forwards each event's exact body to a local URL, signed with the project's listener secret
 * (printed at start; `--print-secret` prints it alone), so a webhook endpoint on a laptop gets every event whether or
 * not a webhook is configured. One line per event: time, event, interview id, local status, milliseconds.
 *
 * Nothing lost, nothing twice: the last forwarded event id is kept per sandbox URL and key in a state file
 * (state.ts), so a listener restarted after a crash resumes after it; a dropped stream resumes with `Last-Event-ID`;
 * a reset from the sandbox (it did not know the id) is printed as a warning. When the forward URL is the project's
 * webhook URL, the sandbox already delivers there: the listener says so and forwards nothing.
 */
import { createParser } from "eventsource-parser";
import { signWebhookBody } from "../webhooks/signing.ts";
import { CliError, checkHttpUrl, clock, remote, sleep, type RemoteOptions } from "./remote.ts";
import { readLastEventId, saveLastEventId } from "./state.ts";

export interface ListenOptions extends RemoteOptions {
  forwardTo?: string;
  /** Print the listener signing secret and exit. */
  printSecret?: boolean;
  /** Stop after forwarding this many events. */
  maxEvents?: number;
  /** Print nothing but the event lines. */
  quiet?: boolean;
  /** Where the last forwarded event id is kept (default: the user's config directory). */
  stateFile?: string;
}

/** Posts one event's exact request to the local endpoint; the status, or the error. */
export async function forward(url: string, headers: Record<string, string>, body: string): Promise<{ status: number | string; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return { status: res.status, ms: Math.round(performance.now() - started) };
  } catch (err) {
    // A system code (ECONNREFUSED), else fetch's own reason ("bad port"), never a bare "TypeError".
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { status: cause?.code ?? cause?.message ?? (err as Error).message, ms: Math.round(performance.now() - started) };
  }
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The same endpoint, `localhost` and `127.0.0.1` alike. */
export function sameEndpoint(a: string, b: string): boolean {
  const x = new URL(a);
  const y = new URL(b);
  const host = (u: URL) => (LOOPBACK.has(u.hostname) ? "loopback" : u.hostname);
  return x.protocol === y.protocol && host(x) === host(y) && x.port === y.port && x.pathname.replace(/\/+$/, "") === y.pathname.replace(/\/+$/, "") && x.search === y.search;
}

interface ListenerInfo {
  signing_secret: string;
  webhook_url: string | null;
}

export async function listen(o: ListenOptions, signal?: AbortSignal): Promise<number> {
  const api = remote(o);
  if (!o.printSecret) {
    if (o.forwardTo === undefined) throw new CliError("give --forward-to URL (your local endpoint), or --print-secret");
    checkHttpUrl("--forward-to", o.forwardTo);
  }
  const info = await api.call<ListenerInfo>("GET", "/_sim/listener");
  if (o.printSecret) {
    console.log(info.signing_secret);
    return 0;
  }
  const target = o.forwardTo!;
  const log = (line: string) => {
    if (!o.quiet) console.error(line);
  };
  // The sandbox already delivers to this URL: forwarding too would deliver every event twice.
  const once = info.webhook_url !== null && sameEndpoint(info.webhook_url, target);
  log(`Ready. Your listener signing secret is ${info.signing_secret} (verify X-Webhook-Signature with it; \`api-sandbox listen --print-secret\` prints it).`);
  if (once) log(`The project's webhook already delivers to ${info.webhook_url}: this listener forwards nothing, so each event arrives once. Events are still printed.`);

  let last = readLastEventId(o.stateFile, api.baseUrl, api.apiKey);
  let forwarded = 0;
  let backoff = 250;
  /** Waits before the next connection attempt, twice as long each time up to 5 s. */
  const retry = async (why: string) => {
    log(`${why}; retrying in ${backoff} ms`);
    await sleep(backoff);
    backoff = Math.min(backoff * 2, 5_000);
  };
  while (!signal?.aborted) {
    let res: Response;
    try {
      res = await fetch(`${api.baseUrl}/_sim/events`, { headers: { ...api.headers(), accept: "text/event-stream", ...(last ? { "last-event-id": last } : {}) }, signal });
    } catch (err) {
      if (signal?.aborted) break;
      await retry(`stream unreachable (${(err as Error).message})`);
      continue;
    }
    if (res.status === 401 || res.status === 404) {
      const body = await res.json().catch(() => ({}));
      throw new CliError(`${api.baseUrl}/_sim/events answered ${res.status}: ${body?.error?.message ?? ""}`);
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => undefined);
      await retry(`stream answered ${res.status}`);
      continue;
    }
    backoff = 250;
    log(`listening on ${api.baseUrl}/_sim/events${last ? ` (resuming after event ${last})` : ""}, ${once ? "printing" : `forwarding to ${target}`}`);
    // Events are forwarded one after another, in stream order; `last` moves only once an event was forwarded.
    const queue: Array<{ id?: string; event?: string; data: string }> = [];
    const parser = createParser({ onEvent: (e) => void queue.push({ id: e.id, event: e.event, data: e.data }) });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
        while (queue.length) {
          const e = queue.shift()!;
          // Where the stream stood when a fresh listener connected: a cut before the first event resumes from here.
          if (e.event === "ready") {
            last ??= e.id;
            continue;
          }
          // The sandbox did not know where we were (it restarted without a data dir, or dropped old events): say so.
          if (e.event === "reset") {
            const reset = JSON.parse(e.data) as { reason?: string };
            console.warn(`${clock()}  warning: the sandbox reset the stream (${reset.reason ?? "no reason given"}); events between ${last ?? "the start"} and now may not have been forwarded`);
            continue;
          }
          const event = JSON.parse(e.data);
          let shown: string | number = "not forwarded (the webhook delivers it)";
          let ms = 0;
          if (!once) {
            const headers = { ...event.headers, "X-Webhook-Signature": signWebhookBody(info.signing_secret, Buffer.from(event.body, "utf8")) };
            const result = await forward(target, headers, event.body);
            [shown, ms] = [result.status, result.ms];
            // Reported to the sandbox, so `api-sandbox trigger` knows the event reached the endpoint.
            await api
              .call("POST", "/_sim/forwards", { event_id: event.event_id, url: target, status: typeof result.status === "number" ? result.status : null, error: typeof result.status === "number" ? null : String(result.status).slice(0, 200) })
              .catch(() => undefined);
          }
          last = e.id ?? last;
          if (last) saveLastEventId(o.stateFile, api.baseUrl, api.apiKey, last);
          forwarded++;
          console.log(`${clock()}  ${event.event}  ${event.interview_id}  ${event.reason === "resend" ? "(resend) " : ""}${shown}${once ? "" : `  ${ms} ms`}`);
          if (o.maxEvents !== undefined && forwarded >= o.maxEvents) {
            await reader.cancel();
            return 0;
          }
        }
      }
      log("stream ended; reconnecting");
    } catch (err) {
      if (signal?.aborted) break;
      log(`stream dropped (${(err as Error).message}); reconnecting`);
    }
  }
  return 0;
}
