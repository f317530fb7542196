/**
 * `api-sandbox deliveries list` and `api-sandbox deliveries resend ID`: what reached the user's endpoint, and a
 * byte-identical resend of one event.
 * - The list holds both ways an event travels: the webhook's delivery attempts and the forwards listeners reported
 *   (a laptop with `listen` and no webhook has only forwards), oldest first.
 * - A delivery's resend goes to the configured webhook (logged as an attempt of its own); a forward's goes back on
 *   the event stream, so the connected listeners forward it again. With `--forward-to`, either is sent from this
 *   machine to that URL instead (a forward's signed with the listener secret, as `listen` signs).
 * Exit codes as `trigger` (EXIT in remote.ts): 0 acknowledged, 3 nothing to receive it, 4 refused, 5 no answer in 30 s.
 */
import { forward } from "./listen.ts";
import { AnswerError, CliError, EXIT, acknowledged, checkHttpUrl, clock, remote, sleep, type Remote, type RemoteOptions } from "./remote.ts";
import { signWebhookBody } from "../webhooks/signing.ts";
import { attemptLine, forwardLine } from "./trigger.ts";

const WAIT_MS = 30_000;
const timeOf = (r: any) => Date.parse(r.object === "sim_forward" ? r.forwarded_at : (r.sent_at ?? r.scheduled_at));

export async function listDeliveries(o: RemoteOptions & { interview?: string; limit: number; json?: boolean }): Promise<number> {
  const api = remote(o);
  const query = new URLSearchParams({ limit: String(o.limit) });
  if (o.interview) query.set("interview_id", o.interview);
  const [attempts, forwards] = await Promise.all([api.call("GET", `/_sim/webhook-deliveries?${query}`), api.call("GET", `/_sim/forwards?${query}`)]);
  const all = [...attempts.data, ...forwards.data].sort((a, b) => timeOf(a) - timeOf(b));
  if (o.json) console.log(JSON.stringify(all, null, 2));
  else {
    for (const r of all) console.log(`${r.id}  ${r.interview_id}  ${r.object === "sim_forward" ? forwardLine(r) : attemptLine(r)}`);
    if (all.length === 0) console.log("nothing delivered yet: no webhook attempt and no listener forward (run `api-sandbox trigger interview.completed`)");
  }
  if (!o.json && (attempts.has_more || forwards.has_more)) console.log(`(more: --limit up to 100, or page with the API)`);
  return EXIT.ok;
}

/** The forward's stream event, or null when the id is not a forward of this project. */
async function forwardEvent(api: Remote, id: string): Promise<any | null> {
  try {
    return await api.call("GET", `/_sim/forwards/${encodeURIComponent(id)}/event`);
  } catch (err) {
    if (err instanceof AnswerError && err.status === 404 && /No such forward/.test(err.message)) return null;
    throw err;
  }
}

export async function resendDelivery(id: string, o: RemoteOptions & { forwardTo?: string }): Promise<number> {
  const api = remote(o);
  if (o.forwardTo) checkHttpUrl("--forward-to", o.forwardTo);
  const event = await forwardEvent(api, id);
  if (event) return o.forwardTo ? forwardFromHere(api, event, o.forwardTo) : resendForward(api, id, event);
  if (o.forwardTo) {
    const request = await api.call("GET", `/_sim/webhook-deliveries/${encodeURIComponent(id)}/request`);
    return sendFromHere(o.forwardTo, request.event_id, request.headers, request.body);
  }
  const attempt = await api.call("POST", `/_sim/webhook-deliveries/${encodeURIComponent(id)}/resend`);
  // The resend is asynchronous: follow it to its outcome.
  for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline; await sleep(200)) {
    const log = await api.call("GET", `/_sim/webhook-deliveries?interview_id=${attempt.interview_id}&limit=100`);
    const now = log.data.find((d: any) => d.id === attempt.id);
    if (now && now.status !== "pending" && now.status !== "in_flight") {
      console.log(`${now.id}  ${attemptLine(now)}`);
      return now.status === "succeeded" ? EXIT.ok : EXIT.refused;
    }
  }
  console.log(`resend ${attempt.id} queued; it has not finished after ${WAIT_MS / 1000} s`);
  return EXIT.timeout;
}

/** One event's exact request, sent from this machine to `url`; exit 0 on a 2xx, else 4. */
async function sendFromHere(url: string, eventId: string, headers: Record<string, string>, body: string): Promise<number> {
  const result = await forward(url, headers, body);
  console.log(`resent event ${eventId} to ${url}: ${result.status} in ${result.ms} ms`);
  return acknowledged(result.status) ? EXIT.ok : EXIT.refused;
}

/** A forward's event, signed with the listener secret as `listen` signs it, sent from this machine. */
async function forwardFromHere(api: Remote, event: any, url: string): Promise<number> {
  const { signing_secret } = await api.call("GET", "/_sim/listener");
  const headers = { ...event.headers, "X-Webhook-Signature": signWebhookBody(signing_secret, Buffer.from(event.body, "utf8")) };
  return sendFromHere(url, event.event_id, headers, event.body);
}

/** Back on the stream: the connected listeners forward it again; followed until one reports its forward. */
async function resendForward(api: Remote, id: string, event: any): Promise<number> {
  const listener = await api.call("GET", "/_sim/listener");
  if (listener.listeners === 0) {
    throw new CliError(`no listener is connected to forward event ${event.event_id} again: run \`api-sandbox listen --forward-to URL\`, or give --forward-to URL to send it from here`, EXIT.noReceiver);
  }
  const forwardsOf = async () => {
    const page = await api.call("GET", `/_sim/forwards?interview_id=${event.interview_id}&limit=100`);
    return page.data.filter((f: any) => f.event_id === event.event_id);
  };
  const before = new Set((await forwardsOf()).map((f: any) => f.id));
  const resent = await api.call("POST", `/_sim/forwards/${encodeURIComponent(id)}/resend`);
  console.log(`${clock()}  event ${event.event_id} is back on the stream (${resent.id}); waiting for a listener to forward it`);
  for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline; await sleep(200)) {
    const fresh = (await forwardsOf()).filter((f: any) => !before.has(f.id));
    if (fresh.length === 0) continue;
    for (const f of fresh) console.log(`${f.id}  ${forwardLine(f)}`);
    return fresh.some((f: any) => acknowledged(f.status)) ? EXIT.ok : EXIT.refused;
  }
  console.log(`no listener reported forwarding it within ${WAIT_MS / 1000} s`);
  return EXIT.timeout;
}
