/**
 * Whether an attempt answered 2xx and then retried (or answered 200 late, inside the timeout) says anything about the
 * service's rule "a 2xx ends the delivery". The covering phase's `receiver-answers` and the model's `watchSchedule`
 * both ask it before they count attempts past a 2xx.
 */
import type { Http } from "../http.ts";
import type { Delivery } from "../receiver.ts";
import { timeoutSlack } from "./timing.ts";

export interface TwoXxJudged {
  /** How long after the attempt's connection the 2xx went (Infinity: never sent), this process's stall included. */
  late: number;
  /** How long the service left our requests unanswered in the timeout before the connection, and in the one after it. */
  slowBefore: number;
  slowAfter: number;
  /** Why the count cannot be judged, said after the answer's name ("the 299 to attempt 1 went ..."); absent: judge it. */
  why?: string;
}

/**
 * `attempt`: the attempt answered 2xx; `retried`: another attempt came after it; `lateAnswer`: the 2xx was sent late on
 * purpose (inside the timeout). Three cases show nothing about the rule:
 * - the 2xx went too near the timeout, by this process's own stall, to tell a timeout from a retry of a 2xx;
 * - a service slow just before may have started its clock that much before it connected (timeoutSlack and on top of
 *   it its slowness): kept from a run of four copies at once that failed a correct server (its 200 went 1311 ms after
 *   the connection, inside a 2000 ms timeout, and the service, slow just then, retried it), and from CI runs where a
 *   299 answered at once, and a retry answered 200 after a 300, were retried;
 * - a service that left its API unanswered from the answer until its timeout was (nearly) due: a process whose event
 *   loop wakes past a timer's time runs the timer before it reads what came meanwhile (Node's order), so it timed out
 *   an answer it had been sent in time. Kept from the CI of 77445cf: on PostgreSQL, under load, a 200 to the retry
 *   after a 429 was retried at a 1000 ms timeout.
 */
export function judgeRetried2xx(http: Http, attempt: Delivery, timeoutMs: number, retried: boolean, lateAnswer: boolean): TwoXxJudged {
  const slack = timeoutSlack(timeoutMs);
  const late = (attempt.answeredAt ?? Infinity) - attempt.startedAt + attempt.lagMs;
  if ((lateAnswer || retried) && late > timeoutMs - slack) {
    return { late, slowBefore: 0, slowAfter: 0, why: `went ${late === Infinity ? "unsent" : `${late} ms after the attempt's connection`}, too near the ${timeoutMs} ms timeout to judge (this process stalled)` };
  }
  const slowBefore = retried ? http.slowness(attempt.startedAt - timeoutMs, attempt.startedAt).ms : 0;
  if (retried && late > timeoutMs - slack - slowBefore) {
    return { late, slowBefore, slowAfter: 0, why: `went ${late} ms after the attempt's connection and was retried, but the service, ${slowBefore} ms slow just before, may have started its ${timeoutMs} ms clock that much earlier: not judged` };
  }
  const slowAfter = retried ? http.slowness(attempt.startedAt, attempt.startedAt + timeoutMs).ms : 0;
  const leftAfterAnswer = attempt.startedAt + timeoutMs - (attempt.answeredAt ?? attempt.at);
  if (retried && slowAfter >= leftAfterAnswer - slack - slowBefore) {
    return { late, slowBefore, slowAfter, why: `went ${late} ms after the attempt's connection and was retried, but the service had our requests unanswered ${slowAfter} ms of the time from that connection until its ${timeoutMs} ms timeout was due: not judged` };
  }
  return { late, slowBefore, slowAfter };
}
