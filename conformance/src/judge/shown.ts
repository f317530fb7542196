/**
 * What one answer of the API may show, whatever else the run knows: the chats, studies and messages a list or read
 * shows, and where a webhook's signing secret appears. The checks judge them on what they plant and read; the proxy
 * judges them on traffic someone else drives (proxy/judge.ts).
 */
import { same } from "./same.ts";

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

/** A language code of English (en, or a regional English such as en-GB). */
export const isEnglish = (lang: unknown): boolean => typeof lang === "string" && /^en(-|$)/i.test(lang);

/**
 * Interview: transcript `translated`, "present only for non-English interviews": whether a transcript entry carries it.
 * Judged only on an English interview (`isEnglish`), where carrying it is the violation.
 */
export const carriesTranslated = (i: any): boolean => Array.isArray(i?.transcript) && i.transcript.some((t: any) => t && typeof t === "object" && "translated" in t);

/** Interview: transcript, "in chronological order": its entries' time_in_call_secs, when they ever go back (else undefined). */
export function transcriptOutOfOrder(transcript: readonly any[]): unknown[] | undefined {
  const times = transcript.map((t) => t?.time_in_call_secs);
  return times.every((t, k) => k === 0 || (typeof t === "number" && t >= times[k - 1])) ? undefined : times;
}

/**
 * Interview: question_answers, "one per interview question", question_index "0-based": the indices are 0..n-1, each
 * once (the seed does not order the array); with the study's questions, n is their number and each text theirs.
 */
export function questionAnswersAgree(qa: readonly any[], questions?: ReadonlyArray<{ text?: unknown }>): boolean {
  const byIndex = [...qa].sort((a, b) => Number(a?.question_index) - Number(b?.question_index));
  if (!byIndex.every((a, k) => a?.question_index === k)) return false;
  return questions === undefined || (qa.length === questions.length && byIndex.every((a, k) => a?.question_text === questions[k]?.text));
}

/**
 * Interview: answer_excerpt, "{role, message} transcript excerpts": the excerpts that are no transcript entry's words,
 * each with its answer's question_index. An excerpt is in the transcript when an entry of its role holds each of its
 * pieces (its message cut at an ellipsis, trimmed) in its `message`, the original language.
 */
export function excerptsOutside(qa: readonly any[], transcript: readonly any[]): Array<{ question_index: unknown; excerpt: any }> {
  const inTranscript = (x: any) => {
    if (typeof x?.message !== "string") return false;
    const pieces = x.message.split(/\.\.\.|…/).map((p: string) => p.trim()).filter(Boolean);
    return transcript.some((e) => e?.role === x.role && typeof e?.message === "string" && pieces.every((p: string) => e.message.includes(p)));
  };
  return qa.flatMap((a) => (Array.isArray(a?.answer_excerpt) ? a.answer_excerpt : []).filter((x: any) => !inTranscript(x)).map((excerpt: any) => ({ question_index: a?.question_index, excerpt })));
}

/** What an interview's record keeps whatever its status: two reads in different statuses are compared on these alone. */
export const INTERVIEW_RECORD = ["id", "study_id", "reference_id", "respondent_email", "language", "started_at", "created_at"];

/**
 * The fields (`keys`: the first read's own, unless given) on which two reads of one interview differ: every one where
 * both read the same status (nothing of an interview changes but with its status), its record's where it moved on.
 */
export function interviewDiffers(read: any, other: any, keys: readonly string[] = Object.keys(read ?? {})): string[] {
  return (read?.status === other?.status ? keys : INTERVIEW_RECORD).filter((k) => !same(read?.[k], other?.[k], k));
}

/** Message: sources, "`null` when none": the messages that show none as an empty list. */
export const noSourcesAsEmpty = (messages: readonly any[]): any[] => messages.filter((m) => Array.isArray(m?.sources) && m.sources.length === 0);

/** The items of a filtered list that do not match its filters (each given field equal to its value). */
export const mismatching = (items: readonly any[], filter: Record<string, string | undefined>): any[] =>
  items.filter((i) => Object.entries(filter).some(([k, v]) => v !== undefined && i?.[k] !== v));

/** Interview: quality_score, the three values a completed interview reads. */
export const QUALITY_SCORES: readonly string[] = ["insightful", "successful", "unsuccessful"];

/** Message: the six public part types, and the four states a `tool_use` part reads. */
export const PART_TYPES = ["text", "thinking", "redacted_thinking", "file", "tool_use", "tool_result"] as const;
export const TOOL_STATES = ["input_available", "output_available", "output_error", "output_denied"] as const;
const isOneOf = (values: readonly string[], v: unknown) => typeof v === "string" && values.includes(v);

/**
 * Message: part types, "discriminated by type", six of them; tool_use.state one of four; redacted_thinking "no other
 * fields": what is wrong with one part, or null.
 */
export function partProblem(p: any): string | null {
  if (!isOneOf(PART_TYPES, p?.type)) return `a ${JSON.stringify(p?.type)} part`;
  if (p.type === "tool_use" && !isOneOf(TOOL_STATES, p.state)) return `a tool_use part with state ${JSON.stringify(p.state)}`;
  const other = p.type === "redacted_thinking" ? Object.keys(p).filter((k) => k !== "type") : [];
  if (other.length) return `a redacted_thinking part with ${other.join(", ")} (it has no other fields)`;
  return null;
}

// The seed's three kinds of internal metadata, by the names a field of them would carry (session_id, sessionId,
// model, model_name, branch, branch_id, parent_branch...).
const INTERNAL_KEY = /session|model|branch/i;

/**
 * Message: "internal metadata (session ids, model names, branching info) are never returned": the paths of fields
 * naming them in a chat or message, tool inputs and results left out.
 */
export function internalKeys(value: unknown, path: string, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v, k) => internalKeys(v, `${path}[${k}]`, out));
  else if (value && typeof value === "object") {
    const toolPayload = (value as any).type === "tool_use" ? "input" : (value as any).type === "tool_result" ? "content" : undefined;
    for (const [key, v] of Object.entries(value)) {
      if (key === toolPayload) continue;
      if (INTERNAL_KEY.test(key)) out.push(`${path}.${key}`);
      internalKeys(v, `${path}.${key}`, out);
    }
  }
  return out;
}

/**
 * Interview: a completed one's started_at, completed_at and duration_secs ("interview length in seconds"): completed
 * not before started, and the length a whole number of seconds no longer than that span (a second for rounding).
 */
export function completedTimes(i: any): { inOrder: boolean; durationFits: boolean; spanSecs: number } {
  const span = (Date.parse(i?.completed_at) - Date.parse(i?.started_at)) / 1000;
  return { inOrder: span >= 0, durationFits: Number.isInteger(i?.duration_secs) && i.duration_secs >= 0 && i.duration_secs <= Math.max(0, span) + 1, spanSecs: span };
}
