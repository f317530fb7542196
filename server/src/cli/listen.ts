/**
 * `api-sandbox listen --forward-to URL`: reads the sandbox's delivery stream (Server-Sent Events from
 * `GET /_sim/events`) and forwards each event's exact bytes and headers to a local URL, so a webhook endpoint on a
 * laptop gets the sandbox's signed deliveries while the sandbox cannot reach it. One line per event: time, event,
 * interview id, local status, milliseconds. When the stream drops it reconnects with `Last-Event-ID`, so no event
 * is lost or forwarded twice. Runs until interrupted (or `maxEvents`, for scripts and tests).
 */
import { createParser } from "eventsource-parser";
import { CliError, clock, remote, sleep, type RemoteOptions } from "./remote.ts";

export interface ListenOptions extends RemoteOptions {
  forwardTo: string;
  /** Stop after forwarding this many events. */
  maxEvents?: number;
  /** Print nothing but the event lines. */
  quiet?: boolean;
}

/** Posts one event's exact request to the local endpoint; the status, or the error. */
export async function forward(url: string, headers: Record<string, string>, body: string): Promise<{ status: number | string; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return { status: res.status, ms: Math.round(performance.now() - started) };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    return { status: cause, ms: Math.round(performance.now() - started) };
  }
}

export async function listen(o: ListenOptions, signal?: AbortSignal): Promise<number> {
  const api = remote(o);
  try {
    new URL(o.forwardTo);
  } catch {
    throw new CliError(`--forward-to must be a URL, got "${o.forwardTo}"`);
  }
  let last: string | undefined;
  let forwarded = 0;
  let backoff = 250;
  const log = (line: string) => {
    if (!o.quiet) console.error(line);
  };
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
      await retry(`stream answered ${res.status}`);
      continue;
    }
    backoff = 250;
    log(`listening on ${api.baseUrl}/_sim/events${last ? ` (resuming after event ${last})` : ""}, forwarding to ${o.forwardTo}`);
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
          // The sandbox did not know where we were (it restarted without a data dir, or dropped old events): say so.
          if (e.event === "reset") {
            const reset = JSON.parse(e.data) as { reason?: string };
            console.warn(`${clock()}  warning: the sandbox reset the stream (${reset.reason ?? "no reason given"}); events between ${last ?? "the start"} and now may not have been forwarded`);
            continue;
          }
          const event = JSON.parse(e.data);
          const result = await forward(o.forwardTo, event.headers, event.body);
          last = e.id ?? String(event.seq);
          forwarded++;
          console.log(`${clock()}  ${event.event}  ${event.interview_id}  ${event.reason === "resend" ? "(resend) " : ""}${result.status}  ${result.ms} ms`);
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
