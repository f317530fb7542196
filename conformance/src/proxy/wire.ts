/** An exchange as a worker message: Headers and URLSearchParams become plain arrays, bodies stay bytes. */
import type { Exchange } from "./exchange.ts";
import type { RelayedDelivery } from "./judging.ts";
import type { Report } from "../run.ts";

export type WireExchange = Omit<Exchange, "responseHeaders" | "query"> & { responseHeaders: Array<[string, string]> };

export type ToWorker =
  | { type: "exchange"; ex: WireExchange }
  | { type: "delivery"; delivery: RelayedDelivery }
  | { type: "progress"; id: number }
  | { type: "report"; id: number; failOnClient: boolean };

export type FromWorker =
  | { type: "print"; line: string }
  | { type: "judged" }
  | { type: "progress"; id: number; line: string }
  | { type: "report"; id: number; report: Report };

export function toWire(ex: Exchange): WireExchange {
  const { query: _q, responseHeaders, ...rest } = ex;
  return { ...rest, responseHeaders: [...responseHeaders] };
}

export function fromWire(w: WireExchange): Exchange {
  const headers = new Headers();
  for (const [k, v] of w.responseHeaders) headers.append(k, v);
  const toBuffer = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  return { ...w, requestBody: toBuffer(w.requestBody), responseBody: toBuffer(w.responseBody), responseHeaders: headers, query: new URL(w.url, "http://proxy").searchParams };
}
