/**
 * What a completion is: the respondent finishes (a states module's `completeInterview`), then the service processes
 * the interview, and only then is it `completed` (the seed: "typically 5 to 30 seconds after the respondent
 * finishes"). A check or a model command that completes an interview waits for that read before it counts it as
 * completed, so an implementation that processes for a while is judged on what it shows once it is done.
 */
import type { Http, Reply } from "../http.ts";
import { sleep } from "./timing.ts";

/** The longest wait for a completion: --webhook-wait-ms, or the seed's 30 s plus 5. */
export const completionWaitMs = (options: { webhookWaitMs?: number }) => options.webhookWaitMs ?? 35_000;

/**
 * The reads back off from 25 ms to 200 ms: a quick completion is seen quickly, and a wait on the seed's 5 to 30 s of
 * processing costs a read every 200 ms, not every 25. Twenty-five interviews waited on at 25 ms each asked a service
 * for up to a thousand reads a second while it was completing and delivering them.
 */
const FIRST_POLL_MS = 25;
const LAST_POLL_MS = 200;

/**
 * Reads the interview until it reads `completed`, answers other than 200, or `waitMs` runs out. Returns the last
 * read and every status seen on the way, in order (repeats folded), for the caller to judge the path.
 */
export async function untilCompleted(http: Http, id: string, waitMs: number): Promise<{ reply: Reply; seen: string[] }> {
  const seen: string[] = [];
  const deadline = Date.now() + waitMs;
  for (let pollMs = FIRST_POLL_MS; ; pollMs = Math.min(pollMs * 2, LAST_POLL_MS)) {
    const reply = await http.req(`/v1/interviews/${id}`);
    const status = reply.body?.status;
    if (reply.status === 200 && seen[seen.length - 1] !== status) seen.push(status);
    if (reply.status !== 200 || status === "completed" || Date.now() >= deadline) return { reply, seen };
    await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
  }
}
