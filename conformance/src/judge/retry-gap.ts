/**
 * Where a retry after a failed attempt may land: the covering phase's `receiver-answers` and the model's
 * `watchSchedule` both judge a retry's timing with it, so a correct service under load is read alike by both.
 */
import type { Http } from "../http.ts";
import type { Delivery } from "../receiver.ts";
import { sequenceWindow, stallWords, timeoutEarly } from "./timing.ts";

export interface RetryGap {
  /** From the failure (its answer, or the receiver timeout run out) to the retry, in ms. */
  gap: number;
  /** The accepted range of `gap`. */
  lo: number;
  hi: number;
  /** What the range allowed for, for a failure message: ", allowing for ...", or "". */
  allowing: string;
}

/**
 * `failed` was answered with a failure (or left unanswered past `timeoutMs` when `timedOut`), `retry` came after it, and
 * the service's delay for that turn is `delayMs`. The gap counts from the failed answer (the receiver reads the
 * interview before it answers, which the delay does not include), or from the timeout when there was no answer.
 * Widened by:
 * - this process's own stalls: the failed attempt read late makes the gap look short, the retry read late long;
 * - after a timeout, a clock the service may start before it connects (timeoutSlack), and as long as it left its API
 *   unanswered just before (a busy service is slow to connect too);
 * - a retry late while the service also left its API unanswered that long.
 */
export function retryGap(http: Http, failed: Delivery, retry: Delivery, timedOut: boolean, timeoutMs: number, delayMs: number): RetryGap {
  const failedAt = timedOut ? failed.startedAt + timeoutMs : failed.answeredAt ?? failed.at;
  const before = timedOut ? http.slowness(failed.startedAt - timeoutMs, failed.startedAt) : { ms: 0, what: "" };
  const earlyStall = timedOut ? timeoutEarly(timeoutMs, failed.lagMs, before.ms) : 0;
  const slow = http.slowness(failedAt, retry.at);
  const [early, late] = sequenceWindow(delayMs);
  const clock = timedOut ? `, and ${Math.round(earlyStall - failed.lagMs)} ms the service may have run its timeout's clock before it connected` : "";
  return {
    gap: retry.at - failedAt,
    lo: early - earlyStall,
    hi: late + Math.max(retry.lagMs, slow.ms),
    allowing: `${stallWords(failed.lagMs + retry.lagMs, slow.ms >= before.ms ? slow : before)}${clock}`,
  };
}
