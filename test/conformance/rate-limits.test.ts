// The suite's client waits out a 429 as it asks (the seed leaves rate limits open: "Request rate limits: not shown"),
// sends the request again, and counts what it waited; a wait past its bound is the answer itself.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Http, rateLimits, retryAfterMs } from "../../conformance/src/http.ts";

let server: Server;
let base = "";
const answers: Array<[number, Record<string, string>]> = [];
let seen = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen++;
    const [status, headers] = answers.shift() ?? [200, {}];
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(status === 200 ? { object: "list", data: [], has_more: false } : { message: "slow down" }));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

const http = () => new Http(base, "svc_live_test", { match: () => undefined }, 5_000);

describe("a target that rate-limits", () => {
  it("reads Retry-After in seconds or as a date, and backs off without one", () => {
    expect(retryAfterMs("2", 0)).toBe(2_000);
    expect(retryAfterMs(null, 0)).toBe(1_000);
    expect(retryAfterMs(null, 2)).toBe(4_000);
    expect(retryAfterMs(null, 9)).toBe(8_000);
    const soon = retryAfterMs(new Date(Date.now() + 3_000).toUTCString(), 0);
    expect(soon).toBeGreaterThan(1_000);
    expect(soon).toBeLessThanOrEqual(3_000);
  });

  it("waits out each 429 and sends the request again, counting the waits", async () => {
    const before = rateLimits(base);
    answers.push([429, { "retry-after": "0" }], [429, { "retry-after": "0" }]);
    seen = 0;
    const reply = await http().req("/v1/studies");
    expect(reply.status).toBe(200);
    expect(seen).toBe(3);
    expect(rateLimits(base).requests - before.requests).toBe(2);
  });

  it("gives the 429 as the answer when it asks for a wait past its bound", async () => {
    answers.push([429, { "retry-after": "120" }]);
    seen = 0;
    const reply = await http().req("/v1/studies");
    expect(reply.status).toBe(429);
    expect(seen).toBe(1);
  });
});
