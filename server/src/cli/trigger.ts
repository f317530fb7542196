/**
 * `api-sandbox trigger interview.completed`: creates a simulated interview, waits until the event reached the user's
 * endpoint, and prints every delivery attempt and every listener forward (time, status, latency, error). It tells
 * the truth, with one exit code per cause (EXIT in remote.ts):
 * - 0: the configured webhook acknowledged (a 2xx), or a listener forwarded the event and got a 2xx;
 * - 3: nothing would receive it (no webhook and no listener connected);
 * - 4: the receiver refused it (its status is printed) and no attempt is left;
 * - 5: no acknowledgement within `--wait` seconds;
 * - 6: the sandbox is unreachable; 2: bad input.
 */
import { CliError, EXIT, acknowledged, clock, remote, sleep, type RemoteOptions } from "./remote.ts";

export interface TriggerOptions extends RemoteOptions {
  study?: string;
  referenceId?: string;
  language?: string;
  wait: number;
}

export function attemptLine(d: any): string {
  const latency = d.sent_at && d.finished_at ? `${Date.parse(d.finished_at) - Date.parse(d.sent_at)} ms` : "-";
  const status = d.response_status ?? "-";
  return `${clock(d.sent_at ?? d.scheduled_at)}  attempt ${d.attempt} (${d.trigger})  ${d.status.padEnd(9)}  HTTP ${String(status).padEnd(3)}  ${latency.padStart(7)}  ${d.error ?? ""}`.trimEnd();
}

export const forwardLine = (f: any) => `${clock(f.forwarded_at)}  forwarded by a listener to ${f.url}  ${f.status === null ? `no answer: ${f.error}` : `HTTP ${f.status}`}`;

export async function trigger(event: string, o: TriggerOptions): Promise<number> {
  if (event !== "interview.completed") throw new CliError(`unknown event "${event}": the only event is interview.completed`);
  const api = remote(o);
  const listener = await api.call("GET", "/_sim/listener");
  if (listener.webhook_url === null && listener.listeners === 0) {
    throw new CliError("nothing would receive the event: no webhook is configured and no listener is connected. Run `api-sandbox listen --forward-to URL` in another terminal, or set a webhook (PUT /v1/webhooks)", EXIT.noReceiver);
  }
  let study = o.study;
  if (!study) {
    const list = await api.call("GET", "/v1/studies?limit=100");
    study = list.data.find((s: any) => s.accepting_responses)?.id;
    if (!study) throw new CliError("no study of this project is accepting responses; give --study");
  }
  const body: Record<string, unknown> = { study_id: study };
  if (o.referenceId !== undefined) body.reference_id = o.referenceId;
  if (o.language !== undefined) body.language = o.language;
  const interview = await api.call("POST", "/_sim/interviews", body);
  const to = [listener.webhook_url && `webhook ${listener.webhook_url}`, listener.listeners > 0 && `${listener.listeners} listener(s)`].filter(Boolean).join(" and ");
  console.log(`interview ${interview.id} created in study ${study}; waiting for ${to}`);
  const printed = new Map<string, string>();
  const show = (id: string, line: string) => {
    if (printed.get(id) === line) return;
    printed.set(id, line);
    console.log(line);
  };
  const deadline = Date.now() + o.wait * 1000;
  for (;;) {
    const [deliveries, forwards] = await Promise.all([
      api.call("GET", `/_sim/webhook-deliveries?interview_id=${interview.id}&limit=100`),
      api.call("GET", `/_sim/forwards?interview_id=${interview.id}&limit=100`),
    ]);
    for (const d of deliveries.data) if (d.status !== "pending" && d.status !== "in_flight") show(d.id, attemptLine(d));
    for (const f of forwards.data) show(f.id, forwardLine(f));
    if (deliveries.data.some((d: any) => d.status === "succeeded")) return EXIT.ok;
    if (forwards.data.some((f: any) => acknowledged(f.status))) return EXIT.ok;
    const open = deliveries.data.filter((d: any) => d.status === "pending" || d.status === "in_flight");
    const refused = [...deliveries.data.filter((d: any) => d.status === "failed"), ...forwards.data.filter((f: any) => !acknowledged(f.status))];
    // Refused with nothing left to try: no pending retry, and any listener has already answered.
    const listenerDone = listener.listeners === 0 || forwards.data.length > 0;
    if (refused.length > 0 && open.length === 0 && listenerDone && (listener.webhook_url === null || deliveries.data.length > 0)) {
      const last = refused[refused.length - 1];
      // A delivery attempt carries the answer in response_status, a forward in status; either is null without one.
      const status: number | null = last.object === "webhook_delivery" ? last.response_status : last.status;
      console.log(`not acknowledged: the receiver refused the event (${status !== null ? `HTTP ${status}` : last.error ?? "no answer"}) and no retry is left`);
      return EXIT.refused;
    }
    if (Date.now() > deadline) {
      const next = open.find((d: any) => d.status === "pending");
      console.log(`not acknowledged within ${o.wait} s${next ? `; attempt ${next.attempt} is due at ${clock(next.scheduled_at)}` : ""}`);
      return EXIT.timeout;
    }
    await sleep(200);
  }
}
