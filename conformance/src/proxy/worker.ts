/**
 * The proxy's judge worker: exchanges and relayed deliveries come in as messages, problem lines and acknowledgements go
 * out, and the report on request. The forwarding thread never waits for a verdict.
 */
import { parentPort, workerData } from "node:worker_threads";
import { fromWire, type ToWorker } from "./wire.ts";
import { Judging, type JudgingOptions } from "./judging.ts";

const port = parentPort!;
const judging = new Judging(workerData as JudgingOptions, (line) => port.postMessage({ type: "print", line }));
port.on("message", (m: ToWorker) => {
  if (m.type === "exchange") {
    judging.exchange(fromWire(m.ex));
    port.postMessage({ type: "judged" });
  } else if (m.type === "delivery") {
    judging.delivery(m.delivery);
    port.postMessage({ type: "judged" });
  } else if (m.type === "progress") port.postMessage({ type: "progress", id: m.id, line: judging.findings.progress() });
  else if (m.type === "report") port.postMessage({ type: "report", id: m.id, report: judging.report(m.failOnClient) });
});
