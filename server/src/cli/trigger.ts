/**
 * `api-sandbox trigger interview.completed`: creates a simulated interview, waits for its webhook deliveries and
 * prints every attempt (time, status, latency, error). Exit 0 when the receiver acknowledged (a 2xx), 1 when it did
 * not within `--wait` seconds or every attempt failed, 2 on bad input.
 */
import { CliError, clock, remote, sleep, type RemoteOptions } from "./remote.ts";

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

export async function trigger(event: string, o: TriggerOptions): Promise<number> {
  if (event !== "interview.completed") throw new CliError(`unknown event "${event}": the only event is interview.completed`);
  const api = remote(o);
  const hook = await api.call("GET", "/v1/webhooks").catch(() => null);
  if (!hook) throw new CliError("no webhook is configured on this project: PUT /v1/webhooks first (or run `api-sandbox listen`, which needs one too)");
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
  console.log(`interview ${interview.id} created in study ${study}; webhook ${hook.url}`);
  const printed = new Map<string, string>();
  const deadline = Date.now() + o.wait * 1000;
  for (;;) {
    const log = await api.call("GET", `/_sim/webhook-deliveries?interview_id=${interview.id}&limit=100`);
    for (const d of log.data) {
      if (d.status === "pending" || d.status === "in_flight") continue;
      const line = attemptLine(d);
      if (printed.get(d.id) !== line) {
        printed.set(d.id, line);
        console.log(line);
      }
    }
    if (log.data.some((d: any) => d.status === "succeeded")) return 0;
    const open = log.data.filter((d: any) => d.status === "pending" || d.status === "in_flight");
    if (log.data.length > 0 && open.length === 0) {
      console.log("not acknowledged: every attempt failed and no retry is left");
      return 1;
    }
    if (Date.now() > deadline) {
      const next = open.find((d: any) => d.status === "pending");
      console.log(`not acknowledged within ${o.wait} s${next ? `; attempt ${next.attempt} is due at ${clock(next.scheduled_at)}` : ""}`);
      return 1;
    }
    await sleep(200);
  }
}
