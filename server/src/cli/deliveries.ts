/**
 * `api-sandbox deliveries list` and `api-sandbox deliveries resend ID`: the project's delivery log, and a resend of
 * one delivery's byte-identical body and signature, either to the configured webhook (recorded in the log as an
 * attempt of its own) or, with `--forward-to`, to a local URL from this machine.
 */
import { attemptLine } from "./trigger.ts";
import { forward } from "./listen.ts";
import { checkHttpUrl, remote, sleep, type RemoteOptions } from "./remote.ts";

export async function listDeliveries(o: RemoteOptions & { interview?: string; limit: number; json?: boolean }): Promise<number> {
  const api = remote(o);
  const query = new URLSearchParams({ limit: String(o.limit) });
  if (o.interview) query.set("interview_id", o.interview);
  const page = await api.call("GET", `/_sim/webhook-deliveries?${query}`);
  if (o.json) console.log(JSON.stringify(page.data, null, 2));
  else for (const d of page.data) console.log(`${d.id}  ${d.interview_id}  ${attemptLine(d)}`);
  if (!o.json && page.has_more) console.log(`(more: --limit up to 100, or page with the API)`);
  return 0;
}

export async function resendDelivery(id: string, o: RemoteOptions & { forwardTo?: string }): Promise<number> {
  const api = remote(o);
  if (o.forwardTo) {
    checkHttpUrl("--forward-to", o.forwardTo);
    const request = await api.call("GET", `/_sim/webhook-deliveries/${encodeURIComponent(id)}/request`);
    const result = await forward(o.forwardTo, request.headers, request.body);
    console.log(`resent event ${request.event_id} to ${o.forwardTo}: ${result.status} in ${result.ms} ms`);
    return typeof result.status === "number" && result.status >= 200 && result.status < 300 ? 0 : 1;
  }
  const attempt = await api.call("POST", `/_sim/webhook-deliveries/${encodeURIComponent(id)}/resend`);
  // The resend is asynchronous: follow it to its outcome.
  for (let i = 0; i < 150; i++) {
    const log = await api.call("GET", `/_sim/webhook-deliveries?interview_id=${attempt.interview_id}&limit=100`);
    const now = log.data.find((d: any) => d.id === attempt.id);
    if (now && now.status !== "pending" && now.status !== "in_flight") {
      console.log(`${now.id}  ${attemptLine(now)}`);
      return now.status === "succeeded" ? 0 : 1;
    }
    await sleep(200);
  }
  console.log(`resend ${attempt.id} queued; it has not finished after 30 s`);
  return 1;
}
