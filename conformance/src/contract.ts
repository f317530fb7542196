/**
 * What the suite knows of the contract: the operations of generated/openapi.json, how to match a request to
 * one, and how to judge a response. Each judgement is a rule with a level (rules.ts): what the seed states
 * (JSON bodies, the resources' fields, detail-only fields, no 5xx) apart from what only our contract pins
 * (the error envelope, declared error statuses, the shapes of endpoints the seed does not show).
 */
import { describeErrors, sharedContractAjv, type ContractAjv, type OpenApiDoc } from "../../lib/openapi-ajv.ts";
import { isEventStreamType, isJsonType, type Reply } from "./http.ts";
import { contract, rules, seed, type Rule } from "./rules.ts";

export const responseRules = rules("response", {
  "no-5xx": seed("Errors (the status table has no 5xx)", "no request, however malformed, is answered with a 5xx", ["errors.400"]),
  json: seed("Conventions: all responses are JSON except 204", "every non-204 response has an application/json body", ["conventions.json"]),
  "empty-204": seed("Endpoints: DELETE /v1/webhooks returns 204, empty body", "a 204 has an empty body", ["conventions.json", "endpoints.delete-webhook"]),
  body: seed("Resources and their fields", "a 2xx body of a seed endpoint has the seed's fields and types", ["resources.ids", "resources.object", "list.object", "list.data", "service.study-link", "study.id", "study.object", "study.name", "study.status", "study.interview-link", "study.languages", "study.limits", "study.monthly-limit", "study.weekly-limit", "study.created-at", "interview.id", "interview.object", "interview.study-id", "interview.status", "interview.language", "interview.quality-score", "interview.duration", "interview.headline", "interview.summary", "interview.started-at", "interview.completed-at", "interview.created-at", "interview.time-in-call", "interview.transcript", "interview.question-index", "release.id", "release.object", "release.status", "release.chat-id", "release.pr-number", "release.pr-title", "release.pr-description", "release.pr-url", "release.pr-author", "release.merged-at", "release.last-analysis", "release.created-at", "chat.id", "chat.object", "chat.title", "chat.source", "chat.is-streaming", "chat.message-count", "chat.created-at", "chat.updated-at", "message.id", "message.object", "message.chat-id", "message.role", "message.parts", "message.sources", "message.feedback", "message.usage", "message.created-at", "message.completed-at", "source.fields", "usage.fields", "part.discriminated", "part.text", "part.thinking", "part.redacted-thinking", "part.file", "part.tool-use", "part.tool-result", "endpoints.get-interview", "endpoints.get-release", "endpoints.get-study", "states.study", "states.interview", "states.release", "states.tool-use"]),
  timestamps: seed("Resources and their fields: all timestamps are ISO 8601 strings (UTC, millisecond precision)", "every timestamp field of a body (`*_at`) is YYYY-MM-DDTHH:MM:SS.mmm in UTC (Z or +00:00)", ["resources.timestamps"]),
  "detail-only": seed("Resources and their fields: detail-only fields", "detail-only fields (research_goal, transcript, vcs_pr_description, message_count, ...) never appear in list items", ["study.detail-only", "interview.detail-only", "release.pr-description", "chat.message-count", "endpoints.list-studies", "endpoints.list-interviews", "endpoints.list-chats"]),
  // A browser's fetch keeps what an answer's headers let it keep, and a CDN in front of the service too: an answer kept
  // fresh hides an interview's completion, a new message or a webhook's change; one a shared cache may keep for every
  // key gives one project's data to another. Only the studies may be cached ("callers may cache the study list for a
  // few minutes"), and the participant config for its time-to-live.
  cacheable: seed("What the service does: every API key is scoped to exactly one project; Endpoints: callers may cache the study list for a few minutes; Participant endpoints: config with a time-to-live the client caches for", "no answer to a keyed GET lets a shared cache keep it for another key (Cache-Control public or s-maxage without Vary naming Authorization), and none but the studies' and the participant config carries a freshness lifetime (max-age or s-maxage above 0, an Expires ahead, or a Last-Modified a browser derives one from): interviews complete, messages arrive and webhooks change between reads", ["service.key-scope", "auth.scope", "states.interview", "endpoints.list-interviews", "endpoints.get-interview", "endpoints.list-messages", "endpoints.get-webhook"]),
  status: contract("declared responses", "every status answered is one the operation declares"),
  "body-shape": contract("shapes the seed does not show", "a 2xx body of the experiments, participant and simulation endpoints matches the contract"),
  envelope: contract("error envelope", "every error body is {\"error\": {\"type\", \"message\", \"details\"?}}"),
  "pinned-fields": contract("fields the seed leaves open", "an interview's reference_id is a string, \"\" when none was passed (the seed's webhook allows null); language codes match the contract's pattern (en, de, pt-BR)"),
  undeclared: contract("closed response schemas", "no field the contract does not declare appears in a response"),
  headers: contract("declared response headers", "every header the contract marks required is present"),
});

/** Operations whose answers may be kept fresh: the studies (the seed lets callers cache their list) and the participant config (its time-to-live). */
const MAY_BE_FRESH = new Set(["listStudies", "getStudy", "getParticipantConfig"]);

/** What a successful GET's caching headers let a browser or a shared cache do that the seed does not, or "". */
export function cacheProblem(reply: Pick<Reply, "method" | "status" | "headers">, operationId: string | undefined): string {
  if (reply.method !== "GET" || reply.status < 200 || reply.status >= 300) return "";
  const cc = (reply.headers.get("cache-control") ?? "").toLowerCase();
  const directives = new Map(cc.split(",").map((d) => d.trim()).filter(Boolean).map((d) => {
    const [k, v] = d.split("=");
    return [k.trim(), (v ?? "").trim().replace(/^"|"$/g, "")] as const;
  }));
  if (directives.has("no-store") || directives.has("no-cache")) return "";
  const seconds = (k: string) => (directives.has(k) ? Number(directives.get(k)) || 0 : undefined);
  const expires = reply.headers.get("expires");
  const expiresAhead = expires !== null && Date.parse(expires) > (Date.parse(reply.headers.get("date") ?? "") || Date.now());
  const modified = reply.headers.get("last-modified");
  // How long a cache may serve the answer without asking: max-age (s-maxage for a shared cache) over Expires, and
  // without either a lifetime a browser derives from Last-Modified (heuristic freshness).
  const lifetime = (shared: boolean) => {
    const explicit = (shared ? seconds("s-maxage") : undefined) ?? seconds("max-age");
    if (explicit !== undefined) return explicit > 0 ? `Cache-Control: ${cc}` : "";
    if (expires !== null) return expiresAhead ? `Expires: ${expires}` : "";
    return modified !== null ? `Last-Modified: ${modified} without Cache-Control or Expires (a browser keeps it fresh for a tenth of its age)` : "";
  };
  const vary = (reply.headers.get("vary") ?? "").toLowerCase().split(",").map((v) => v.trim());
  const shared = !directives.has("private") && (directives.has("public") || directives.has("s-maxage")) ? lifetime(true) : "";
  if (shared && !vary.includes("authorization") && !vary.includes("*")) return `${shared} lets a shared cache keep this answer and give it to a request with another key (it varies on no Authorization)`;
  if (operationId && MAY_BE_FRESH.has(operationId)) return "";
  const fresh = lifetime(false);
  return fresh ? `${fresh} keeps this answer fresh, so a browser or a cache serves it again unchanged after the resource changed` : "";
}

/** UTC with millisecond precision; `+00:00` is UTC too. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(Z|\+00:00)$/;

/** Timestamp fields (`created_at`, `merged_at`, ... and the webhook's `timestamp`) whose string is not the seed's form. */
export function badTimestamps(value: any, path: string): Array<{ path: string; value: unknown }> {
  if (value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => badTimestamps(v, `${path}/${i}`));
  return Object.entries(value).flatMap(([k, v]) =>
    (k.endsWith("_at") || k === "timestamp") && typeof v === "string" ? (TIMESTAMP.test(v) ? [] : [{ path: `${path}/${k}`, value: v }]) : badTimestamps(v, `${path}/${k}`),
  );
}

export interface Problem {
  rule: string;
  message: string;
}

/** Fields the seed lists as detail-only (single retrieval), per resource object. */
const DETAIL_ONLY: Record<string, string[]> = {
  study: ["research_goal", "product_name", "questions", "interview_count"],
  interview: ["transcript", "question_answers"],
  release: ["vcs_pr_description"],
  chat: ["message_count"],
};

/** Fields whose type our contract pins tighter than the seed (the seed's webhook types reference_id as nullable). */
const PINNED_FIELDS = ["reference_id"];

/** Tags whose shapes the seed does not show: their bodies are judged at the contract level only. */
const CONTRACT_SHAPED = new Set(["Experiments", "Participant", "Simulation"]);

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  regex: RegExp;
  op: any;
  auth: "project" | "public";
  tag: string;
  /** The sandbox's own tooling (`x-sandbox-tooling`): no implementation offers it, and the suite never asks for it. */
  tooling: boolean;
}

const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

export class Contract {
  readonly ajv: ContractAjv;
  readonly doc: OpenApiDoc;
  readonly operations: Operation[] = [];

  constructor(doc?: OpenApiDoc) {
    // Shared by every run in the process: validators are compiled once, not once per run.
    this.ajv = sharedContractAjv(doc);
    this.doc = this.ajv.doc;
    for (const [path, item] of Object.entries<any>(this.doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const security = op.security ?? this.doc.security;
        this.operations.push({
          operationId: op.operationId,
          method: method.toUpperCase(),
          path,
          regex: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}/?$`),
          op,
          auth: security.some((s: object) => "PublicSdkKey" in s) ? "public" : "project",
          tag: op.tags?.[0] ?? "",
          tooling: op["x-sandbox-tooling"] === true,
        });
      }
    }
  }

  match(method: string, path: string): Operation | undefined {
    return this.operations.find((o) => o.method === method && o.regex.test(path));
  }

  byId(id: string): Operation {
    const op = this.operations.find((o) => o.operationId === id);
    if (!op) throw new Error(`no operation ${id} in the contract`);
    return op;
  }

  resolve(node: any): any {
    let n = node;
    for (let guard = 0; n?.$ref && guard < 20; guard++) n = n.$ref.slice(2).split("/").reduce((x: any, k: string) => x[k.replace(/~1/g, "/").replace(/~0/g, "~")], this.doc);
    return n;
  }

  /** The query parameters an operation declares, each with its schema resolved. */
  queryParameters(op: Operation): Array<{ name: string; schema: any }> {
    return (op.op.parameters ?? []).map((x: unknown) => this.resolve(x)).filter((p: any) => p?.in === "query").map((p: any) => ({ name: p.name, schema: this.resolve(p.schema) }));
  }

  /** Whether the reply is a `text/event-stream` that its operation declares for that status. */
  private declaredStream(reply: Reply, operation: Operation | undefined): boolean {
    return isEventStreamType(reply.headers.get("content-type")) && !!operation?.op.responses[String(reply.status)]?.content?.["text/event-stream"];
  }

  /** The response rules that apply to a reply (each is exercised by judging it). */
  judgedRules(reply: Reply, operation = this.match(reply.method, reply.path.split("?")[0])): Rule[] {
    const r = responseRules;
    const out: Rule[] = [r["no-5xx"]];
    if (reply.status === 204) out.push(r["empty-204"]);
    else if (!this.declaredStream(reply, operation)) out.push(r.json);
    if (reply.status >= 400) out.push(r.envelope);
    if (!operation) return out;
    out.push(r.status);
    if (reply.status < 300 && reply.status !== 204) out.push(CONTRACT_SHAPED.has(operation.tag) ? r["body-shape"] : r.body, r.timestamps, r["pinned-fields"], r["detail-only"], r.undeclared, r.headers);
    if (reply.method === "GET" && reply.status >= 200 && reply.status < 300 && operation.tag !== "Simulation") out.push(r.cacheable);
    return out;
  }

  /** Problems of a reply judged against the operation it answers (or the error envelope for unknown routes). */
  judge(reply: Reply, operation = this.match(reply.method, reply.path.split("?")[0])): Problem[] {
    const problems: Problem[] = [];
    const add = (rule: Rule, message: string) => problems.push({ rule: rule.id, message });
    const r = responseRules;
    if (reply.status >= 500) add(r["no-5xx"], `status ${reply.status}: a server error is never a valid answer`);
    const type = reply.headers.get("content-type") ?? "";
    if (reply.status === 204) {
      if (reply.text !== "") add(r["empty-204"], "a 204 must have an empty body");
    } else if (this.declaredStream(reply, operation)) {
      // A stream the operation declares (text/event-stream): its status and headers are judged, not a JSON body.
    } else if (!isJsonType(type) || (reply.body === undefined && reply.text !== "null")) add(r.json, `content-type is ${JSON.stringify(type)}${reply.body === undefined ? " and the body is not JSON" : ""}`);
    if (reply.status >= 400) {
      const v = this.ajv.validator("#/components/schemas/ErrorEnvelope");
      if (!v(reply.body)) add(r.envelope, `error body is not the envelope: ${describeErrors(v.errors)}`);
    }
    if (!operation) return problems;
    const declared = operation.op.responses[String(reply.status)];
    if (!declared) {
      add(r.status, `status ${reply.status} is not declared for ${operation.operationId} (declared: ${Object.keys(operation.op.responses).join(", ")})`);
      return problems;
    }
    if (reply.status >= 300 || reply.status === 204) return problems;
    const cached = operation.tag === "Simulation" ? "" : cacheProblem(reply, operation.operationId);
    if (cached) add(r.cacheable, cached);
    for (const [name, h] of Object.entries<any>(declared.headers ?? {})) {
      if (h.required && !reply.headers.has(name)) add(r.headers, `missing required header ${name}`);
    }
    if (declared.content?.["application/json"]) {
      const pointer = `#/paths/${esc(operation.path)}/${operation.method.toLowerCase()}/responses/${reply.status}/content/application~1json/schema`;
      const v = this.ajv.validator(pointer);
      if (!v(reply.body)) {
        // Errors on fields our contract pins where the seed is open are contract problems; the rest are the seed's.
        const errors = v.errors ?? [];
        const pinned = errors.filter((e) => e.keyword === "pattern" || PINNED_FIELDS.some((f) => e.instancePath.endsWith(`/${f}`)));
        const rest = errors.filter((e) => !pinned.includes(e));
        if (pinned.length) add(r["pinned-fields"], `body does not match the schema: ${describeErrors(pinned)}`);
        if (rest.length || !pinned.length) add(CONTRACT_SHAPED.has(operation.tag) ? r["body-shape"] : r.body, `body does not match the schema: ${describeErrors(rest.length ? rest : errors)}`);
      }
      for (const bad of badTimestamps(reply.body, "")) add(r.timestamps, `${bad.path} is ${JSON.stringify(bad.value)}, not an ISO 8601 UTC timestamp with milliseconds`);
      for (const u of this.undeclared(declared.content["application/json"].schema, reply.body, "")) {
        const field = u.path.split("/").pop()!;
        add(DETAIL_ONLY[u.object ?? ""]?.includes(field) ? r["detail-only"] : r.undeclared, `${u.path} is not declared by the contract${DETAIL_ONLY[u.object ?? ""]?.includes(field) ? " (a detail-only field)" : ""}`);
      }
    }
    return problems;
  }

  /** Fields present in `value` that the schema does not declare (free-form objects are left alone), with the `object` they sit in. */
  undeclared(schemaNode: any, value: any, path: string): Array<{ path: string; object?: string }> {
    const schema = this.resolve(schemaNode);
    if (value === null || typeof value !== "object" || !schema) return [];
    if (schema.allOf) return schema.allOf.flatMap((s: any) => this.undeclared(s, value, path));
    const alternatives = schema.oneOf ?? schema.anyOf;
    if (alternatives) {
      const prop = schema.discriminator?.propertyName;
      const candidates = alternatives.map((s: any) => this.resolve(s)).filter((s: any) => s.type !== "null");
      if (prop) {
        const chosen = candidates.find((s: any) => s.properties?.[prop]?.enum?.includes(value[prop]));
        return chosen ? this.undeclared(chosen, value, path) : [];
      }
      // Without a discriminator (a launch by token or by invite code), the alternative that declares the most of it.
      const shaped = candidates.filter((s: any) => (Array.isArray(value) ? s.type === "array" : s.type === "object"));
      const judged = shaped.map((s: any) => this.undeclared(s, value, path));
      return judged.length ? judged.reduce((a: any[], b: any[]) => (b.length < a.length ? b : a)) : [];
    }
    if (Array.isArray(value)) return schema.items ? value.flatMap((v, i) => this.undeclared(schema.items, v, `${path}/${i}`)) : [];
    if (!schema.properties || schema.additionalProperties !== undefined) return [];
    const out: Array<{ path: string; object?: string }> = [];
    for (const key of Object.keys(value)) {
      if (!(key in schema.properties)) out.push({ path: `${path}/${key}`, object: typeof value.object === "string" ? value.object : undefined });
      else out.push(...this.undeclared(schema.properties[key], value[key], `${path}/${key}`));
    }
    return out;
  }
}
