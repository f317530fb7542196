/** `api-sandbox faults show|set|clear`: the project's fault settings (`/_sim/faults`) from the shell. */
import { remote, type RemoteOptions } from "./remote.ts";

export interface FaultFlags extends RemoteOptions {
  rate?: number;
  kinds?: string[];
  operations?: string[];
  latency?: number;
  jitter?: number;
  failNext?: number;
  failNextKind?: string;
  webhookFailures?: number;
  webhookFailureStatus?: number;
  seed?: number;
}

export async function faults(action: "show" | "set" | "clear", o: FaultFlags): Promise<number> {
  const api = remote(o);
  if (action === "clear") {
    await api.call("DELETE", "/_sim/faults");
    console.log("faults cleared");
    return 0;
  }
  if (action === "show") {
    console.log(JSON.stringify(await api.call("GET", "/_sim/faults"), null, 2));
    return 0;
  }
  const body = {
    rate: o.rate, kinds: o.kinds, operations: o.operations, latency_ms: o.latency, jitter_ms: o.jitter, fail_next: o.failNext,
    fail_next_kind: o.failNextKind, webhook_failures: o.webhookFailures, webhook_failure_status: o.webhookFailureStatus, seed: o.seed,
  };
  console.log(JSON.stringify(await api.call("PUT", "/_sim/faults", Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined))), null, 2));
  return 0;
}
