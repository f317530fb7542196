/**
 * What one answer of the API may show, whatever else the run knows: the chats, studies and messages a list or read
 * shows, and where a webhook's signing secret appears. The checks judge them on what they plant and read; the proxy
 * judges them on traffic someone else drives (proxy/judge.ts).
 */

/** Chat: source, "internal-only sources (`eval`, `releases`) are never returned". */
export const INTERNAL_SOURCES: readonly string[] = ["eval", "releases"];

/** The chats shown with an internal-only source. */
export const internallySourced = (chats: readonly any[]): any[] => chats.filter((c) => INTERNAL_SOURCES.includes(c?.source));

/** Message: usage, "assistant messages only; `null` on user/system messages": the others' messages carrying usage. */
export const usageOffAssistant = (messages: readonly any[]): any[] => messages.filter((m) => m?.role !== "assistant" && m?.usage !== null);

/** Endpoints: GET /v1/studies lists the project's active studies: the listed studies that are not. */
export const listedNotActive = (studies: readonly any[]): any[] => studies.filter((s) => s?.status !== "active");

/**
 * Webhook configuration: signing_secret, "returned only in the creation response"; Endpoints: PUT answers 201 with it
 * on first creation, 200 without it on update, GET never shows it, DELETE answers 204. What one answer of
 * /v1/webhooks shows wrong, and which of those statements it breaks; null when nothing is.
 */
export function webhookAnswerProblem(method: string, status: number, body: unknown): { breaks: "create" | "update" | "secret-hidden" | "delete-204"; problem: string } | null {
  const has = body !== null && typeof body === "object" && "signing_secret" in body;
  const secret = has ? (body as { signing_secret?: unknown }).signing_secret : undefined;
  if (method === "PUT" && status === 201 && (typeof secret !== "string" || secret.length === 0)) return { breaks: "create", problem: `the creation answer (201) carries no signing_secret (it has ${JSON.stringify(Object.keys((body as object) ?? {}))})` };
  if (method === "PUT" && status === 200 && has) return { breaks: "update", problem: "a PUT answered 200 (an update) shows a signing_secret: only the creation response, a 201, carries it" };
  if (method === "GET" && status === 200 && has) return { breaks: "secret-hidden", problem: "GET /v1/webhooks has a signing_secret field" };
  if (method === "DELETE" && status >= 200 && status < 300 && status !== 204) return { breaks: "delete-204", problem: `DELETE /v1/webhooks answered ${status}, not 204` };
  return null;
}
