/** The three participant endpoints, typed from the contract, with the public key in `X-Public-Key`. */
import type { components } from "../../../generated/schema.d.ts";

type S = components["schemas"];
export type ParticipantConfig = S["ParticipantConfig"];
export type LaunchDecision = S["LaunchDecision"];

export class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export class ParticipantApi {
  constructor(private readonly baseUrl: string, private readonly publicKey: string, private readonly fetchImpl: typeof fetch) {}

  private async call<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
    const res = await this.fetchImpl(`${this.baseUrl.replace(/\/+$/, "")}${path}`, {
      method: init.method ?? "GET",
      headers: { "X-Public-Key": this.publicKey, ...(init.body !== undefined ? { "Content-Type": "application/json" } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new HttpError(res.status, `${init.method ?? "GET"} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  config(referenceId: string | null): Promise<ParticipantConfig> {
    return this.call(`/v1/interview-participant/config${referenceId ? `?referenceId=${encodeURIComponent(referenceId)}` : ""}`);
  }

  launch(body: S["LaunchRequest"]): Promise<LaunchDecision> {
    return this.call("/v1/interview-participant/launches", { method: "POST", body });
  }

  promptEvent(body: S["PromptEventInput"]): Promise<unknown> {
    return this.call("/v1/interview-participant/prompt-events", { method: "POST", body });
  }
}
