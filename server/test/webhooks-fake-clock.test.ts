// The default schedule of the seed (retries after 10 s, 1 min, 5 min, then drop) run on a manual clock: no test
// waits minutes, yet every retry is checked to be due exactly then and not a millisecond earlier.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api } from "./helpers.ts";
import { acceptingStudy, answer, deliveries, gapMs, manualClock, registerHook, simulate, sleep, startReceiver, waitFor, type Receiver } from "./webhooks-helpers.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

let api: Api;
let receiver: Receiver;
const clock = manualClock();

beforeAll(async () => {
  // No webhookRetryDelaysMs: the defaults are under test. The simulated interview completes after 1 s of clock time.
  api = await startApi({ clock, simProcessingMs: SECOND });
  receiver = await startReceiver(answer(500));
  await registerHook(api, receiver.url);
});
afterAll(async () => {
  await api.server.close();
  await receiver.close();
});

/** The network is real: wait until attempt `n` has reached the receiver and been recorded as failed. */
async function attemptFailed(interviewId: string, n: number) {
  await waitFor(`attempt ${n} to fail`, async () => {
    const a = await deliveries(api, interviewId);
    return receiver.requests.length === n && a[n - 1]?.status === "failed" ? a : undefined;
  });
}

/** Nothing new reaches the receiver in a short real-time window. */
async function expectNoRequestBeyond(n: number) {
  await sleep(60);
  expect(receiver.requests.length).toBe(n);
}

describe("the default retry schedule on a manual clock", () => {
  it("retries after 10 s, 1 min and 5 min of clock time, then drops the event", async () => {
    const study = await acceptingStudy(api);
    const interview = await simulate(api, study.id);
    expect(receiver.requests.length).toBe(0);
    clock.advance(SECOND);
    await attemptFailed(interview.id, 1);

    for (const [n, delay] of [[2, 10 * SECOND], [3, MINUTE], [4, 5 * MINUTE]]) {
      clock.advance(delay - 1);
      await expectNoRequestBeyond(n - 1);
      clock.advance(1);
      await attemptFailed(interview.id, n);
    }

    clock.advance(60 * MINUTE);
    await expectNoRequestBeyond(4);
    const attempts = await deliveries(api, interview.id);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    // On a clock that only moves when told, the record's times are exact.
    expect(gapMs(attempts[0].sent_at, attempts[1].sent_at)).toBe(10 * SECOND);
    expect(gapMs(attempts[1].sent_at, attempts[2].sent_at)).toBe(MINUTE);
    expect(gapMs(attempts[2].sent_at, attempts[3].sent_at)).toBe(5 * MINUTE);
    for (const a of attempts) expect(a.scheduled_at).toBe(a.sent_at);
    expect(new Set(receiver.requests.map((r) => r.body.toString("hex"))).size).toBe(1);
  });
});
