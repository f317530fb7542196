/** The three participant endpoints, typed from the contract, with the public key in `X-Public-Key`. */
import type { components } from "../../../generated/api.d.ts";
import type { FetchLike } from "./types.ts";

type S = components["schemas"];
export type ParticipantConfig = S["ParticipantConfig"];
export type LaunchDecision = S["LaunchDecision"];
export type LaunchRequest = S["LaunchRequest"];
export type PromptEventInput = S["PromptEventInput"];

/** A non-2xx answer; `type` is the error envelope's `error.type` when the body had one. */
export class HttpError extends Error {
  constructor(readonly status: number, readonly type: string | undefined, message: string) {
    super(message);
  }
}

/** The server bounds requests; a hung one must not keep an invite "starting" forever. */
const TIMEOUT_MS = 10_000;

export class ParticipantApi {
  constructor(private readonly baseUrl: string, private readonly publicKey: string, private readonly fetchImpl: FetchLike) {}

  private async call<T>(path: string, method: "GET" | "POST", body?: unknown): Promise<T> {
    // Called detached: a browser's fetch throws "Illegal invocation" when `this` is not the window.
    const fetchImpl = this.fetchImpl;
    // AbortController and setTimeout, not AbortSignal.timeout: React Native's AbortSignal has no timeout(). The call
    // races its own timer rather than trusting fetch to honour the signal (Node 20's fetch follows a signal carried
    // through a Request weakly, and a collection can drop it: the typed client lost its timeout so, issue #41).
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`${method} ${path.split("?")[0]}: no answer within ${TIMEOUT_MS / 1000} s`));
        controller.abort();
      }, TIMEOUT_MS);
    });
    let res: Awaited<ReturnType<FetchLike>>;
    let text: string;
    try {
      res = await Promise.race([fetchImpl(`${this.baseUrl.replace(/\/+$/, "")}${path}`, {
        method,
        headers: { "X-Public-Key": this.publicKey, ...(body !== undefined ? { "Content-Type": "application/json" } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
      }), timedOut]);
      text = await Promise.race([res.text(), timedOut]);
    } finally {
      clearTimeout(timer);
    }
    if (!res.ok) {
      let type: string | undefined;
      try {
        type = (JSON.parse(text) as { error?: { type?: string } }).error?.type;
      } catch {
        // Not the error envelope (a proxy's HTML page, say): the status is all we know.
      }
      throw new HttpError(res.status, type, `${method} ${path.split("?")[0]}: ${res.status} ${text.slice(0, 200)}`);
    }
    return JSON.parse(text) as T;
  }

  config(referenceId: string | null): Promise<ParticipantConfig> {
    const query = referenceId ? `?referenceId=${encodeURIComponent(referenceId)}` : "";
    return this.call(`/v1/interview-participant/config${query}`, "GET");
  }

  launch(body: LaunchRequest): Promise<LaunchDecision> {
    return this.call("/v1/interview-participant/launches", "POST", body);
  }

  promptEvent(body: PromptEventInput): Promise<unknown> {
    return this.call("/v1/interview-participant/prompt-events", "POST", body);
  }
}
