// The proxy's judgement of relayed retries on a made-up clock: the cases a run against a real service reaches only by
// luck (a receiver that times out, a resend by hand, a webhook changed between a failure and its retry, an event sent
// again after a 2xx). The schedule against real deliveries is in proxy-foreign.test.ts.
import { describe, expect, it } from "vitest";
import type { Exchange } from "../../conformance/src/proxy/exchange.ts";
import { Findings } from "../../conformance/src/proxy/findings.ts";
import { Judging, PROXY_RULES } from "../../conformance/src/proxy/judging.ts";
import { RetryWatch } from "../../conformance/src/proxy/retry-watch.ts";

const SCHEDULE = { delaysMs: [1_000, 2_000, 3_000], timeoutMs: 5_000 };
const INTERVIEW = "7b0c9f61-5a7e-4c1e-9d2b-3f7a9e0c4d11";

function exchange(seq: number, at: number, method = "POST", path = "/hook", status = 200): Exchange {
  return { seq, at, method, url: path, path, query: new URLSearchParams(), requestHeaders: {}, requestBody: null, status, responseHeaders: new Headers(), responseBody: null, durationMs: 1, key: null };
}

/** A watch and its findings; `deliver` relays one attempt of the interview at `at`, answered `status` after `tookMs`. */
function setup() {
  const findings = new Findings({ target: "http://service.test/api", level: "contract", print: () => undefined });
  const watch = new RetryWatch(SCHEDULE, () => undefined);
  const raw = Buffer.from(JSON.stringify({ event: "interview.completed", data: { interview_id: INTERVIEW, session_id: INTERVIEW } }));
  let seq = 0;
  const deliver = (at: number, status: number | null, tookMs = 5, body = raw) =>
    watch.delivery(JSON.parse(body.toString()), body, { "x-webhook-signature": "sha256=ab" }, status, tookMs, exchange(-++seq, at), `delivery ${seq}`, findings);
  const failed = () => findings.report(false, PROXY_RULES).results.flatMap((r) => r.failures.map((f) => `${f.rule}: ${f.message}`));
  return { findings, watch, deliver, failed, raw };
}

describe("RetryWatch", () => {
  it("takes the schedule kept, then judges the event dropped once the last window passed", () => {
    const { watch, findings, deliver, failed } = setup();
    deliver(0, 500);
    deliver(1_000, 500);
    deliver(3_010, 503);
    deliver(6_020, null, 30_000);
    watch.overdue(6_020 + 5_000 + 1_000, findings);
    expect(failed()).toEqual([]);
    watch.overdue(6_020 + 5_000 + 3_600 + 1_000, findings);
    const held = findings.report(false, PROXY_RULES).results[0].rules.map((r) => r.id);
    expect(held).toEqual(expect.arrayContaining(["webhooks.retries", "webhooks.retry-count", "webhooks.dedupe-key"]));
    expect(failed()).toEqual([]);
  });

  it("after a timeout, counts the retry's delay from when the service stopped waiting, not from the arrival", () => {
    const { deliver, failed } = setup();
    // The receiver answered 2xx after 7 s, past the service's 5 s: a timeout, retried about 5 s + 1 s after the send.
    deliver(0, 200, 7_000);
    deliver(1_200, 500);
    expect(failed()).toEqual([expect.stringContaining("webhooks.retries: #-2: delivery 2: interview")]);
    const late = setup();
    late.deliver(0, 200, 7_000);
    late.deliver(6_000, 200);
    expect(late.failed()).toEqual([]);
  });

  it("flags a retry sooner than its delay, one too many, another body, and one that never came", () => {
    const early = setup();
    early.deliver(0, 500);
    early.deliver(400, 500);
    expect(early.failed()).toEqual([expect.stringMatching(/^webhooks\.retries: .*arrived 400 ms after attempt 1 \(answered 500 after 5 ms\); the configured delay is 1000 ms/)]);

    const many = setup();
    for (const at of [0, 1_000, 3_000, 6_000, 9_000]) many.deliver(at, 500);
    expect(many.failed()).toEqual([expect.stringContaining("webhooks.retry-count: #-5: delivery 5: interview")]);

    const other = setup();
    other.deliver(0, 500);
    other.deliver(1_000, 500, 5, Buffer.from(JSON.stringify({ event: "interview.completed", data: { interview_id: INTERVIEW, session_id: "another" } })));
    expect(other.failed().map((f) => f.split(":")[0])).toEqual(["webhooks.identical-retries", "webhooks.dedupe-key"]);

    const never = setup();
    never.deliver(0, 500);
    never.watch.overdue(1_000, never.findings);
    expect(never.failed()).toEqual([]);
    never.watch.overdue(10_000, never.findings);
    never.watch.overdue(20_000, never.findings);
    expect(never.failed()).toEqual([expect.stringContaining("attempt 1 was answered 500, and no retry came within")]);
  });

  it("leaves alone an event sent again after a 2xx, a webhook changed after the failure, a resend seen, and failures injected", () => {
    const again = setup();
    again.deliver(0, 200);
    again.deliver(100, 200);
    expect(again.failed()).toEqual([]);

    const changed = setup();
    changed.deliver(0, 500);
    changed.watch.exchange(exchange(7, 200, "DELETE", "/v1/webhooks", 204));
    changed.watch.overdue(60_000, changed.findings);
    expect(changed.failed()).toEqual([]);

    const resent = setup();
    for (const at of [0, 1_000, 3_000, 6_000]) resent.deliver(at, 500);
    resent.watch.exchange(exchange(8, 7_000, "POST", "/_sim/webhook-deliveries/d1/resend", 202));
    resent.deliver(7_100, 500);
    expect(resent.failed()).toEqual([]);

    // The sandbox's injected failures are recorded without being sent: the retries seen are not numbered as counted.
    const injected = setup();
    const faults = (at: number, body: unknown) => ({ ...exchange(9, at, "PUT", "/_sim/faults", 200), requestBody: Buffer.from(JSON.stringify(body)) });
    injected.watch.exchange(faults(0, { webhook_failures: 1 }));
    injected.deliver(10_000, 500);
    injected.deliver(70_000, 500);
    injected.watch.overdue(200_000, injected.findings);
    expect(injected.failed()).toEqual([]);
    // Cleared: judged again.
    injected.watch.exchange(faults(200_000, { webhook_failures: 0 }));
    injected.deliver(210_000, 500);
    injected.deliver(210_300, 500);
    expect(injected.failed()).toEqual([expect.stringContaining("arrived 300 ms after attempt 1")]);
  });

  it("judges a retry whose window passed before a webhook change the proxy sees, unless a delivery was still being relayed then", () => {
    const payload = Buffer.from(JSON.stringify({ event: "interview.completed", data: { interview_id: INTERVIEW, session_id: INTERVIEW } }));
    const run = (relayingSince?: number) => {
      const judging = new Judging({ target: "http://service.test/api", level: "contract", webhookRetryDelaysMs: SCHEDULE.delaysMs, webhookTimeoutMs: SCHEDULE.timeoutMs }, () => undefined);
      // The first attempt answered 503; its retry is due about 1 s later. The client moves the webhook 10 s after it.
      judging.delivery({ seq: 1, at: 0, receiver: "http://receiver.test/hook", method: "POST", headers: { "content-type": "application/json", "x-webhook-event": "interview.completed", "x-webhook-signature": "sha256=ab" }, raw: new Uint8Array(payload), status: 503, tookMs: 5 });
      judging.exchange({ ...exchange(2, 10_000, "PUT", "/v1/webhooks", 200), key: "svc_live_acme_0123456789abcdef0123456789abcdef", requestHeaders: { "content-type": "application/json" }, requestBody: Buffer.from(JSON.stringify({ url: "https://receiver.test/other", events: ["interview.completed"] })), ...(relayingSince === undefined ? {} : { relayingSince }) });
      return judging.report(false).results.flatMap((r) => r.failures.map((f) => `${f.rule}: ${f.message}`)).filter((f) => f.startsWith("webhooks.retries"));
    };
    // No retry came in its window, and the change came after it: the retry was owed, whatever the change excuses later.
    expect(run()).toEqual([expect.stringContaining("no retry came within")]);
    // A delivery the relay was still passing on from before the window closed may be that retry: nothing judged yet,
    // and the change then excuses what had not come.
    expect(run(900)).toEqual([]);
  });
});
