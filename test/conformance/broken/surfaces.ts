/**
 * Simulation surfaces not shaped like ours, made from the reference server by a proxy: capabilities removed (each
 * operation answers 404, each optional field is refused with a 400 naming it, as a strict server does) and the
 * surface of contract 2.0.0 (every capability added after it removed at once). A refused request is never forwarded,
 * so a removed capability cannot create anything behind the suite's back.
 */
import { AFTER_2_0_0, type Capability } from "../../../conformance/src/states/capabilities.ts";
import type { Exchange, Mutation } from "./proxy.ts";

type Request = Pick<Exchange, "method" | "path" | "query" | "requestHeaders" | "requestBody">;

const PUBLIC_PARTS = new Set(["text", "thinking", "redacted_thinking", "file", "tool_use", "tool_result"]);
const STATES = new Set(["input_available", "output_available", "output_error", "output_denied"]);

/** The operation each operation capability is (method and path pattern under /api). */
const OPERATIONS: Partial<Record<Capability, [string, RegExp]>> = {
  "plant-study": ["POST", /^\/api\/_sim\/studies$/],
  "plant-interview": ["POST", /^\/api\/_sim\/interviews$/],
  complete: ["POST", /^\/api\/_sim\/interviews\/[^/]+\/complete$/],
  abandon: ["POST", /^\/api\/_sim\/interviews\/[^/]+\/abandon$/],
  "study-status": ["PUT", /^\/api\/_sim\/studies\/[^/]+\/status$/],
  "plant-chat": ["POST", /^\/api\/_sim\/chats$/],
  "create-project": ["POST", /^\/api\/_sim\/projects$/],
  "plant-release": ["POST", /^\/api\/_sim\/releases$/],
  faults: ["*", /^\/api\/_sim\/faults$/],
};

/** The field a request uses for each field capability, or undefined. */
function fieldUsed(cap: Capability, ex: Request): string | undefined {
  const b = ex.requestBody;
  if (ex.method !== "POST" || b === null || typeof b !== "object") return undefined;
  const messages: any[] = Array.isArray(b.messages) ? b.messages : [];
  if (ex.path === "/api/_sim/interviews") {
    const field = ({ hold: ["hold"], "created-at": ["created_at", "completed_at"], "interview-link": ["interview_link"], "respondent-id": ["respondent_id"] } as Partial<Record<Capability, string[]>>)[cap];
    return field?.find((f) => b[f] !== undefined);
  }
  if (ex.path === "/api/_sim/releases") return cap === "release-url" && b.vcs_pr_url !== undefined ? "vcs_pr_url" : undefined;
  if (ex.path !== "/api/_sim/chats") return undefined;
  if (cap === "hidden-messages") return messages.some((m) => m?.hidden !== undefined) ? "messages/hidden" : undefined;
  if (cap === "recorded-parts") return messages.some((m) => (m?.parts ?? []).some((p: any) => !PUBLIC_PARTS.has(p?.type) || (p?.type === "tool_use" && !STATES.has(p?.state)))) ? "messages/parts" : undefined;
  if (cap === "chat-fields") return ["created_at", "is_streaming"].find((f) => b[f] !== undefined) ?? (messages.some((m) => m?.feedback !== undefined || m?.usage !== undefined || m?.streaming !== undefined || m?.completed_at !== undefined) ? "messages/feedback" : undefined);
  return undefined;
}

/** Answers the request without forwarding it (the upstream gets a harmless read whose answer is replaced). */
function refuse(ex: Request, status: number, body: unknown): void {
  ex.requestHeaders["x-surface-answer"] = JSON.stringify({ status, body });
  ex.method = "GET";
  ex.path = "/api/v1/studies";
  ex.query = new URLSearchParams("limit=1");
  ex.requestBody = undefined;
}

function answerRefusals(ex: Exchange): void {
  const planned = ex.requestHeaders["x-surface-answer"];
  if (!planned) return;
  const { status, body } = JSON.parse(planned);
  Object.assign(ex, { status, body, headers: { ...ex.headers, "content-type": "application/json; charset=utf-8" } });
}

/** The reference server without these capabilities. */
export function withoutCapabilities(caps: readonly Capability[], name = `without ${caps.join(", ")}`): Mutation {
  return {
    name,
    request(ex) {
      for (const cap of caps) {
        const op = OPERATIONS[cap];
        if (op && (op[0] === "*" || op[0] === ex.method) && op[1].test(ex.path)) return refuse(ex, 404, { error: { type: "not_found_error", message: `No such route: ${ex.method} ${ex.path}` } });
        const field = fieldUsed(cap, ex);
        if (field) return refuse(ex, 400, { error: { type: "invalid_request_error", message: "Invalid parameters", details: [{ location: "body", field, message: "is not a known parameter" }] } });
      }
    },
    response: answerRefusals,
  };
}

/** The simulation surface as contract 2.0.0 had it. */
export const surface200 = (): Mutation => withoutCapabilities(AFTER_2_0_0, "the simulation surface of contract 2.0.0");

/** No simulation surface at all: every /_sim request is a 404, and none reaches the server. */
export const noSurface = (): Mutation => ({
  name: "no simulation surface",
  request(ex) {
    if (ex.path.startsWith("/api/_sim")) refuse(ex, 404, { error: { type: "not_found_error", message: `No such route: ${ex.method} ${ex.path}` } });
  },
  response: answerRefusals,
});

/** Applies several mutations: requests through each in order, answers back through them in reverse. */
export function compose(name: string, ...mutations: Mutation[]): Mutation {
  return {
    name,
    request(ex, proxy) {
      for (const m of mutations) m.request?.(ex, proxy);
    },
    async response(ex, proxy) {
      for (const m of [...mutations].reverse()) await m.response?.(ex, proxy);
    },
  };
}
