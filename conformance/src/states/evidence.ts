/**
 * Evidence for capability detection: how the target answers what surely does not exist, and whether an answer
 * differs from that. An operation is offered when its probe is answered unlike a random path beside it (status,
 * content type, body once the path's own words are set aside); a 404 that names the id asked for is the service
 * speaking, not a missing route. What this cannot settle (answers that vary from request to request in the same
 * shape, a 5xx) is settled at first use. No convention of the reference server's is assumed: not its statuses, not
 * its error envelope.
 */
import { randomBytes } from "node:crypto";

/** What a decision rests on: one answer, reduced to what can be compared. */
export interface Answer {
  status: number;
  /** The media type, without parameters (`application/json`), or "" when none was sent. */
  type: string;
  text: string;
}

export const answerOf = (reply: { status: number; headers: Headers; text: string }): Answer => ({
  status: reply.status,
  type: (reply.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase(),
  text: reply.text,
});

/** A path segment no implementation routes: what a missing route looks like beside the probed one. */
export const randomSegment = () => `zz-no-such-route-${randomBytes(4).toString("hex")}`;

/** The path with its last segment replaced (the sibling that surely does not exist). */
export const sibling = (path: string, segment: string) => path.replace(/[^/]*$/, segment);

const lastSegment = (path: string) => path.split("/").pop() ?? "";

/** Sets aside what differs between two requests to the same handler: the path's own words, ids, instants, numbers. */
export function normalize(text: string, words: string[]): string {
  let out = text;
  for (const w of words.filter(Boolean).sort((a, b) => b.length - a.length)) out = out.split(w).join("\u0000");
  return out
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
    .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})?/g, "<instant>")
    .replace(/\d+/g, "<n>");
}

/** The structure of a body: JSON types and keys, recursively (values set aside); `text` for what is not JSON. */
export function shape(text: string): string {
  let value: unknown;
  try {
    value = text ? JSON.parse(text) : undefined;
  } catch {
    return "text";
  }
  const of = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.length ? of(v[0]) : ""}]`;
    if (v !== null && typeof v === "object") return `{${Object.keys(v).sort().map((k) => `${k}:${of((v as Record<string, unknown>)[k])}`).join(",")}}`;
    return v === null ? "null" : typeof v;
  };
  return of(value);
}

/**
 * How the target answers two random paths beside a probed one, with the probe's method and body. `stable` when both
 * answers read the same once their own segment is set aside: then a probe's answer can be compared word for word.
 */
export class Fingerprint {
  readonly stable: boolean;
  private readonly normalized: string;

  constructor(readonly samples: Array<{ answer: Answer; path: string }>) {
    const texts = samples.map((s) => normalize(s.answer.text, [lastSegment(s.path)]));
    this.stable = samples.every((s) => s.answer.status === samples[0].answer.status && s.answer.type === samples[0].answer.type) && texts.every((t) => t === texts[0]);
    this.normalized = texts[0];
  }

  /** The first sample, for the report: `404 application/json` and the start of its body. */
  describe(): string {
    const a = this.samples[0].answer;
    return `${a.status}${a.type ? ` ${a.type}` : ""}${a.text ? ` ${JSON.stringify(a.text.slice(0, 80))}` : ""}`;
  }

  /**
   * Whether `answer` (to `path`) is what a missing route answers: true, false, or undefined when this cannot tell
   * (the missing routes' answers vary in the same shape as this one).
   */
  matches(answer: Answer, path: string): boolean | undefined {
    const first = this.samples[0].answer;
    if (answer.status !== first.status || answer.type !== first.type) return false;
    if (this.stable) return normalize(answer.text, [lastSegment(path)]) === this.normalized;
    return shape(answer.text) === shape(first.text) ? undefined : false;
  }
}

export type Decision = { offered: true; how: string } | { offered: false; how: string } | { offered: "unknown"; how: string };

const said = (a: Answer) => `${a.status}${a.text ? ` ${JSON.stringify(a.text.slice(0, 120))}` : ""}`;

/**
 * Whether the operation behind `path` is offered, from its probe's answer and the missing routes' fingerprint.
 * `asked` is an id the probe named (a 404 that names it is the service answering about that id); `creates` says the
 * probe is a creation that names no resource.
 */
export function decide(what: string, answer: Answer, path: string, fp: Fingerprint, asked?: string, creates = false): Decision {
  if (answer.status === 405 || answer.status === 501) return { offered: false, how: `${what} answered ${said(answer)}: the method is not offered there` };
  if (answer.status === 0 || answer.status >= 500) return { offered: "unknown", how: `${what} answered ${said(answer)} to a probe; settled at first use` };
  // A 404 to a creation that names no resource: nothing it asked for can be missing but the route.
  if (answer.status === 404 && creates) return { offered: false, how: `${what} answered ${said(answer)} to a request that names no resource: the operation is not offered` };
  const missing = fp.matches(answer, path);
  // A 404 for an id that does not exist, alike to a missing route's (a framework's default 404, such as FastAPI's
  // HTTPException(404)): the probe cannot tell them apart; a use with a real id can.
  if (missing === true && asked && answer.status === 404) return { offered: "unknown", how: `${what} answered ${said(answer)} for an id that does not exist, as a path that surely does not exist does (${sibling(path, "…")}); settled at first use, with a real id` };
  if (missing === true) return { offered: false, how: `${what} answered ${said(answer)}, as a path that surely does not exist does (${sibling(path, "…")}): the operation is not offered` };
  if (missing === false) return { offered: true, how: `${what} answered ${said(answer)}, unlike a path that surely does not exist (${fp.describe()})` };
  if (answer.status === 404 && asked && answer.text.includes(asked) && !fp.samples.some((s) => s.answer.text.includes(asked))) {
    return { offered: true, how: `${what} answered ${said(answer)}, naming the id asked for: the service answered about it` };
  }
  return { offered: "unknown", how: `${what} answered ${said(answer)}, in the shape a missing route answers in (${fp.describe()}); settled at first use` };
}

/**
 * Whether an optional field is taken: the same request with and without it (both cannot succeed for another reason).
 * The same answer: taken. A validation answer (400, 422) only with it: refused. Otherwise the first use settles it.
 */
export function decideField(what: string, without: Answer, withField: Answer, names: (answer: Answer) => boolean): Decision {
  const validation = (a: Answer) => a.status === 400 || a.status === 422;
  const refused = { offered: false as const, how: `${what} answered ${said(withField)} where the same request without the field answered ${said(without)}: the field is refused` };
  if (validation(withField) && names(withField) && !names(without)) return refused;
  if (withField.status === without.status && (!validation(withField) || normalize(withField.text, []) === normalize(without.text, []))) return { offered: true, how: `${what} answered ${said(withField)}, as the same request without the field does` };
  if (validation(withField) && !validation(without)) return refused;
  return { offered: "unknown", how: `${what} answered ${said(withField)} (without the field: ${said(without)}); settled at first use` };
}
