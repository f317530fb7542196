// The proxy's reading of GET /v1/experiments past the seed's day, when it may be served or removed: the answers whose
// verdict depends on which (a 401's deprecation headers, a keyless 404) wait until the traffic shows it.
import { describe, expect, it } from "vitest";
import { REMOVABLE_FROM } from "../../conformance/src/judge/deprecation.ts";
import type { Exchange } from "../../conformance/src/proxy/exchange.ts";
import { Findings } from "../../conformance/src/proxy/findings.ts";
import { PROXY_RULES } from "../../conformance/src/proxy/judging.ts";
import { RemovalWatch } from "../../conformance/src/proxy/removal-watch.ts";

const KEY = "svc_live_acme_0123456789abcdef0123456789abcdef";
const ANNOUNCED = { deprecation: "Thu, 01 Jan 2026 00:00:00 GMT", sunset: "Wed, 01 Jul 2026 23:59:59 GMT", link: '</api/v1/studies>; rel="successor-version"' };
let seq = 0;
const get = (status: number, key: string | null, headers: Record<string, string> = {}): Exchange => ({
  seq: ++seq, at: Date.now(), method: "GET", url: "/v1/experiments", path: "/v1/experiments", query: new URLSearchParams(), requestHeaders: {}, requestBody: null,
  status, responseHeaders: new Headers(headers), responseBody: null, durationMs: 1, key,
});

function setup(now = REMOVABLE_FROM + 86_400_000) {
  const findings = new Findings({ target: "http://service.test/api", level: "seed", print: () => undefined });
  const watch = new RemovalWatch(() => now);
  const failed = () => findings.report(false, PROXY_RULES).results.flatMap((r) => r.failures.map((f) => f.rule));
  const judged = () => findings.report(false, PROXY_RULES).results[0].rules.map((r) => r.id);
  return { findings, watch, failed, judged };
}

describe("RemovalWatch", () => {
  it("served (a 200 seen): a 401 without the headers fails, after or before the 200", () => {
    const { watch, findings, failed, judged } = setup();
    watch.judge(get(401, null), findings);
    expect(judged()).toEqual([]);
    watch.judge(get(200, KEY, ANNOUNCED), findings);
    // (The successor Link is our contract's: a warning at --level seed.)
    expect(failed()).toEqual(["deprecated.headers"]);
    watch.judge(get(401, null, ANNOUNCED), findings);
    expect(failed()).toEqual(["deprecated.headers"]);
    expect(judged()).toContain("proxy.auth-first");
  });

  it("removed (a 404 or 410 with a key seen): a keyless 401 or 404 owes no headers, but a keyless 200 still fails", () => {
    const { watch, findings, failed } = setup();
    watch.judge(get(401, null), findings);
    watch.judge(get(404, null), findings);
    watch.judge(get(410, KEY), findings);
    expect(failed()).toEqual([]);
    watch.judge(get(403, null), findings);
    expect(failed()).toEqual(["proxy.auth-first"]);
  });

  it("neither seen: nothing judged, and the report says what waited, once", () => {
    const { watch, findings, failed } = setup();
    watch.judge(get(401, null), findings);
    watch.judge(get(404, null), findings);
    watch.report(findings);
    watch.report(findings);
    expect(failed()).toEqual([]);
    expect(findings.notes.filter((n) => n.includes("GET /v1/experiments"))).toEqual([expect.stringMatching(/^2 answer\(s\) of GET \/v1\/experiments .* not judged/)]);
  });

  it("before the day, it takes nothing: the endpoint must be served", () => {
    const { watch } = setup(REMOVABLE_FROM - 1);
    expect(watch.handles(get(401, null))).toBe(false);
  });
});
