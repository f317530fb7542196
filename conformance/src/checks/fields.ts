/**
 * fields: what each field of the seed's resources means, beyond its type, on the server's own data and (with --sim)
 * on planted data where every value is chosen, boundary forms first: `null` against empty, each value of each state
 * set, 0-based indexes, chronological transcripts, English interviews without translations, usage only on assistant
 * messages, chats ordered by creation however recently they were updated, and the interview's path from `started`
 * to `completed`. Without --sim the planted part is NOT TESTED.
 */
import { isEnglish, questionAnswersAgree, carriesTranslated, usageOffAssistant, completedTimes, excerptsOutside, interviewDiffers, transcriptOutOfOrder, QUALITY_SCORES } from "../judge/shown.ts";
import { completionWaitMs, untilCompleted as waitCompleted } from "../judge/completion.ts";
import type { Check, Ctx } from "../check.ts";
import { snapshot } from "../data.ts";
import type { Reply } from "../http.ts";
import { rules, seed } from "../rules.ts";
import type { PlantChatInput, PlantInterviewInput } from "../states/types.ts";

const r = rules("fields", {
  "interview-study": seed("What the service does: an interview belongs to one study; Interview: study_id", "every interview's study_id names a study of the project (GET /v1/studies/:id answers 200)", ["service.interview-study", "interview.study-id"]),
  "interview-times": seed("Interview: started_at, completed_at", "a completed interview's completed_at is not before its started_at", ["interview.completed-at", "interview.started-at"]),
  quality: seed("Interview: quality_score", "a completed interview's quality_score is insightful, successful or unsuccessful", ["interview.quality-score"]),
  duration: seed("Interview: duration_secs, interview length in seconds", "a completed interview's duration_secs is a whole number of seconds, no longer than from its started_at to its completed_at", ["interview.duration"]),
  transcript: seed("Interview: transcript, chronological", "a transcript is in chronological order: time_in_call_secs never decreases", ["interview.transcript", "interview.time-in-call"]),
  translated: seed("Interview: transcript translated, present only for non-English interviews", "no transcript entry of an English interview (en, or a regional English such as en-GB) carries `translated`; every entry of one planted in German, French or Brazilian Portuguese does", ["interview.translated"]),
  "question-answers": seed("Interview: question_answers, one per interview question, question_index 0-based", "a completed interview has one answer per question of its study: question_index 0..n-1, each once, with that question's text, and each answer_excerpt entry words of a transcript entry of its role (the original language)", ["interview.question-answers", "interview.question-index", "interview.transcript"]),
  "interview-statuses": seed("States and transitions: Interview status", "a simulated interview held open reads `started` (and is listed under status=started); once completed it reads `completed` (and is listed under status=completed), passing only through `processing`", ["states.interview", "interview.status"]),
  "study-link": seed("Study: interview_link, string (URL), public respondent URL", "every study's interview_link is an absolute http(s) URL as a respondent would open it: ASCII only, no space or control character (RFC 3986)", ["study.interview-link", "service.study-link"]),
  "detail-agrees": seed("Endpoints: GET /v1/releases/:id, Release with vcs_pr_description; GET /v1/studies/:id, Study with detail fields; GET /v1/interviews/:id", "every listed release retrieves by its id (200) with the pull request and record the list showed (ids, number, title, URL, author, merged_at, created_at) and a string vcs_pr_description; every listed study likewise keeps its name, status, interview_link, languages and created_at; every listed interview retrieves with the list's values (its record's alone if its status moved on in between)", ["endpoints.get-release", "release.pr-description", "endpoints.get-study", "study.detail-only", "endpoints.get-interview", "interview.detail-only"]),
  "last-analysis": seed("Release: last_analysis_at, last analysis run; null if none yet", "a release's last_analysis_at is null or not before its merged_at (the analysis is of the merged pull request)", ["release.last-analysis"]),
  "chat-no-bodies": seed("Chat: message bodies are not part of the chat object", "no chat, listed or retrieved, carries messages, parts or content", ["chat.no-bodies"]),
  "updated-at": seed("Chat: updated_at, most recent update", "a chat's updated_at is not before its created_at, nor before the time any of its messages was recorded or finished", ["chat.updated-at"]),
  "usage-roles": seed("Message: usage, assistant messages only", "every user and system message has usage null", ["message.usage"]),
  "null-forms": seed("Resources and their fields: `null` forms", "values planted absent read back as `null`, never \"\", [] or {}: respondent_email, chat title, source and is_streaming, message sources, feedback, usage and completed_at (while streaming), a file part's filename; a chat planted without them still carries title, source and is_streaming (a value or null)", ["interview.respondent-email", "chat.title", "chat.source", "chat.is-streaming", "message.sources", "message.feedback", "message.usage", "message.completed-at", "part.file"]),
  "planted-values": seed("Resources and their fields", "values planted read back unchanged: a study's name, supported_languages and questions, an interview's language, reference_id and respondent_email, chat title, source and is_streaming, each part in order (all four tool_use states), sources, feedback positive and negative, usage", ["study.name", "study.languages", "study.detail-only", "interview.language", "interview.reference-id", "interview.respondent-email", "chat.title", "chat.source", "chat.is-streaming", "message.parts", "message.sources", "message.feedback", "message.usage", "states.tool-use", "part.text", "part.thinking", "part.redacted-thinking", "part.file", "part.tool-use", "part.tool-result", "source.fields", "usage.fields"]),
  "reference-tag": seed("Study: interview_link, appending reference_id=<your_user_id> tags the interview", "an interview opened through the study's interview_link with ?reference_id=X reads reference_id X", ["study.reference-tag"]),
  "transient-states": seed("Message: transient internal lifecycle states are reported as input_available", "a tool call recorded while its input streams or while it waits for approval reads state input_available", ["part.transient-states"]),
  transports: seed("Message: all tool transports are normalized to tool_use / tool_result", "tool calls and results recorded by server tools, MCP, web search and code execution read as tool_use and tool_result with the same id, name, summary, input, content and is_error", ["part.transports"]),
  "internal-hidden": seed("Message: internal runtime parts are never returned", "recorded compaction, container upload and hidden branch parts are never returned; the public parts around them keep their order", ["part.internal-hidden"]),
  "chat-order": seed("Endpoints: GET /v1/chats, pagination is by created_at so traversal stays stable while chats receive messages", "a chat created earlier but updated later is still listed after a chat created later", ["endpoints.chats-stable", "endpoints.list-chats"]),
});

/** Deep equality regardless of key order (an implementation may serialize fields in any order). */
const same = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => same((a as any)[k], (b as any)[k]));
};

/** The seed's meaning of each interview field, on one retrieved interview and its study. */
function judgeInterview(ctx: Ctx, i: any, study: any, reply: Reply): void {
  if (i?.status === "completed" && typeof i.started_at === "string" && typeof i.completed_at === "string") {
    const times = completedTimes(i);
    ctx.expect(r["interview-times"], times.inOrder, `interview ${i.id} completed_at ${i.completed_at} is before started_at ${i.started_at}`, reply);
    ctx.expect(r.quality, QUALITY_SCORES.includes(i.quality_score), `completed interview ${i.id} has quality_score ${JSON.stringify(i.quality_score)}, not insightful, successful or unsuccessful`, reply);
    // The interview's length cannot outlast the span it was started and completed in (a second for rounding).
    ctx.expect(r.duration, times.durationFits, `completed interview ${i.id} has duration_secs ${JSON.stringify(i.duration_secs)}, not a whole number of seconds between 0 and ${times.spanSecs.toFixed(1)} (started_at ${i.started_at}, completed_at ${i.completed_at})`, reply);
  }
  const transcript: any[] = Array.isArray(i?.transcript) ? i.transcript : [];
  const backwards = transcriptOutOfOrder(transcript);
  ctx.expect(r.transcript, !backwards, `interview ${i?.id}: transcript time_in_call_secs ${JSON.stringify(backwards?.slice(0, 12))} is not chronological`, reply);
  if (isEnglish(i?.language)) ctx.expect(r.translated, !carriesTranslated(i), `interview ${i.id} is in ${i.language} but its transcript carries \`translated\``, reply);
  if (i?.status === "completed" && Array.isArray(study?.questions)) {
    const qa: any[] = Array.isArray(i.question_answers) ? i.question_answers : [];
    const ok = questionAnswersAgree(qa, study.questions);
    ctx.expect(r["question-answers"], ok, `interview ${i.id}: question_answers ${JSON.stringify(qa.map((a) => [a?.question_index, a?.question_text]))} is not one per question of study ${study.id} (${JSON.stringify(study.questions.map((q: any, k: number) => [k, q?.text]))})`, reply);
    const outside = excerptsOutside(qa, transcript)[0];
    ctx.expect(r["question-answers"], !outside, `interview ${i.id} (${i.language}): the answer_excerpt ${JSON.stringify(outside?.excerpt)} of question ${outside?.question_index} is no ${outside?.excerpt?.role} entry's words in its transcript (an excerpt of the transcript, in its original language)`, reply);
  }
}

// RFC 3986's characters only (unreserved, reserved and %-escapes): a link with raw non-ASCII, spaces or control
// characters is not a URL a respondent can be sent, though WHATWG's parser would quietly escape it.
const URL_CHARS = /^https?:\/\/[A-Za-z0-9\-._~%!$&'()*+,;=:@/?#[\]]+$/;

function judgeStudyLink(ctx: Ctx, study: any, reply: Reply | undefined): void {
  const link = study?.interview_link;
  let parsed: URL | undefined;
  try {
    parsed = typeof link === "string" ? new URL(link) : undefined;
  } catch {
    parsed = undefined;
  }
  ctx.expect(r["study-link"], typeof link === "string" && URL_CHARS.test(link) && parsed !== undefined && parsed.host !== "", `study ${study?.id} has interview_link ${JSON.stringify(link)}, not an absolute http(s) URL`, reply, study);
}

/** Retrieves a listed item by its id: a 200 whose `fields` are as the list showed them and whose `strings` are strings. */
async function retrievesAsListed(ctx: Ctx, resource: string, listed: any, fields: string[], strings: string[] = []): Promise<Reply> {
  const reply = await ctx.http.req(`/v1/${resource}/${listed.id}`);
  const differ = fields.filter((k) => !same(listed[k], reply.body?.[k]));
  const notString = strings.filter((k) => typeof reply.body?.[k] !== "string");
  const said = reply.status !== 200 ? "" : [...differ, ...notString].map((k) => ` with ${k} ${JSON.stringify(reply.body?.[k])}${differ.includes(k) ? ` (listed ${JSON.stringify(listed[k])})` : ""}`).join(",");
  const what = resource === "studies" ? "study" : resource.replace(/s$/, "");
  ctx.expect(r["detail-agrees"], reply.status === 200 && differ.length === 0 && notString.length === 0, `${what} ${listed.id}, listed by GET /v1/${resource}, retrieves as ${reply.status}${said}`, reply);
  return reply;
}

/** A chat's most recent update is not before its latest message: recorded (created_at) or finished (completed_at). */
function judgeUpdatedAfterMessages(ctx: Ctx, chat: Reply, messages: any[]): void {
  const times = messages.flatMap((m) => [m?.created_at, m?.completed_at]).filter((t): t is string => typeof t === "string").map(Date.parse);
  if (!times.length || typeof chat.body?.updated_at !== "string") return;
  const latest = Math.max(...times);
  ctx.expect(r["updated-at"], Date.parse(chat.body.updated_at) >= latest, `chat ${chat.body.id} updated_at ${chat.body.updated_at} is before its latest message (${new Date(latest).toISOString()})`, chat, { chat: chat.body, messages: messages.map((m) => ({ id: m?.id, created_at: m?.created_at, completed_at: m?.completed_at })) });
}

function judgeChat(ctx: Ctx, c: any, reply: Reply | undefined): void {
  ctx.expect(r["chat-no-bodies"], c && !["messages", "parts", "content", "text"].some((k) => k in c), `chat ${c?.id} carries message bodies (${Object.keys(c ?? {}).join(", ")})`, reply, c);
  if (typeof c?.created_at === "string" && typeof c?.updated_at === "string") ctx.expect(r["updated-at"], Date.parse(c.updated_at) >= Date.parse(c.created_at), `chat ${c.id} updated_at ${c.updated_at} is before created_at ${c.created_at}`, reply, c);
}

async function serverData(ctx: Ctx): Promise<void> {
  const s = await snapshot(ctx.http);
  const studies = new Map<string, any>();
  const studyOf = async (id: string) => {
    if (!studies.has(id)) {
      const reply = await ctx.http.req(`/v1/studies/${id}`);
      ctx.expect(r["interview-study"], reply.status === 200, `interview study_id ${id} does not retrieve a study of the project (GET answered ${reply.status})`, reply);
      studies.set(id, reply.status === 200 ? reply.body : null);
    }
    return studies.get(id);
  };
  for (const item of s.interviews.slice(0, 80)) {
    const reply = await ctx.http.req(`/v1/interviews/${item.id}`);
    if (reply.status !== 200) continue;
    // The list's fields are the retrieval's: the same values where the status is the same, the record's where not.
    const differ = interviewDiffers(item, reply.body);
    ctx.expect(r["detail-agrees"], differ.length === 0, `interview ${item.id}, listed by GET /v1/interviews, retrieves with ${differ.map((k) => `${k} ${JSON.stringify(reply.body?.[k])} (listed ${JSON.stringify(item[k])})`).join(", ")}`, reply);
    judgeInterview(ctx, reply.body, await studyOf(reply.body.study_id), reply);
  }
  for (const study of s.studies) judgeStudyLink(ctx, study, undefined);
  // A release cannot be planted, so the service's own are held to what its list said of them: what a pull request and
  // its record fix (its status may be dismissed, and it may be analysed again, between the two reads).
  for (const listed of s.releases.slice(0, 20)) {
    const reply = await retrievesAsListed(ctx, "releases", listed, ["id", "object", "chat_id", "vcs_pr_number", "vcs_pr_title", "vcs_pr_url", "vcs_pr_author", "merged_at", "created_at"], ["vcs_pr_description"]);
    // The last analysis of a release is of its merged pull request: it cannot come before the merge.
    const analysed = listed.last_analysis_at;
    ctx.expect(r["last-analysis"], analysed === null || (typeof analysed === "string" && Date.parse(analysed) >= Date.parse(listed.merged_at)), `release ${listed.id} has last_analysis_at ${JSON.stringify(analysed)}, before its merged_at ${listed.merged_at}`, reply);
  }
  // A study's limits move as interviews arrive, so only what stays put is compared.
  for (const listed of s.studies.slice(0, 10)) await retrievesAsListed(ctx, "studies", listed, ["name", "status", "interview_link", "supported_languages", "created_at"]);
  for (const c of s.chats) judgeChat(ctx, c, undefined);
  for (const c of s.chats.slice(0, 20)) {
    const reply = await ctx.http.req(`/v1/chats/${c.id}`);
    if (reply.status === 200) judgeChat(ctx, reply.body, reply);
    const msgs = await ctx.http.walk(`/v1/chats/${c.id}/messages`, 100);
    const off = usageOffAssistant(msgs.items)[0];
    if (msgs.items.some((m: any) => m?.role !== "assistant")) ctx.expect(r["usage-roles"], !off, `message ${off?.id} (role ${off?.role}) of chat ${c.id} has usage ${JSON.stringify(off?.usage)}`, msgs.pages[0]);
  }
}

/** Waits until a simulated interview reads `completed`, noting every status it passes through. */
async function untilCompleted(ctx: Ctx, id: string, seen: Set<string>): Promise<Reply> {
  const done = await waitCompleted(ctx.http, id, completionWaitMs(ctx.options));
  for (const status of done.seen) seen.add(status);
  return done.reply;
}

async function listedUnder(ctx: Ctx, status: string, studyId: string, id: string): Promise<boolean> {
  const walk = await ctx.http.walk(`/v1/interviews?study_id=${studyId}&status=${status}`, 100);
  return walk.items.some((x) => x.id === id);
}

async function plantedInterviews(ctx: Ctx): Promise<void> {
  // The last padded, with markup and a CRLF: each answer's question_text is that question's text byte for byte.
  const questions = [{ text: "What did you try first?" }, { text: "What stopped you?" }, { text: "  What would you change? <b>&</b>\r\n(and why) " }];
  const planted = await ctx.states.plantStudy({ name: "Fields probe", supported_languages: ["en", "de", "en-GB", "fr", "pt-BR"], questions });
  const studyReply = await ctx.http.req(`/v1/studies/${planted.id}`);
  const study = studyReply.body;
  judgeStudyLink(ctx, study, studyReply);
  // The study reads back as planted: its name (the run's tag appended), its languages (a set: the seed gives no order)
  // and its questions in order.
  // Each language code as it was given, capitals included, as an interview's language is (cover.interview-whole):
  // BCP 47 matches tags without case, but the API returns what the project configured.
  const langs = Array.isArray(study?.supported_languages) ? [...study.supported_languages].sort() : study?.supported_languages;
  ctx.expect(r["planted-values"], String(study?.name).startsWith("Fields probe") && JSON.stringify(langs) === JSON.stringify(["de", "en", "en-GB", "fr", "pt-BR"]), `a study planted with name "Fields probe" and supported_languages ["en","de","en-GB","fr","pt-BR"] reads name ${JSON.stringify(study?.name)} and supported_languages ${JSON.stringify(study?.supported_languages)}`, studyReply);
  ctx.expect(r["planted-values"], JSON.stringify((study?.questions ?? []).map((q: any) => q?.text)) === JSON.stringify(questions.map((q) => q.text)), `a study planted with questions ${JSON.stringify(questions.map((q) => q.text))} reads questions ${JSON.stringify(study?.questions)}`, studyReply);
  const make = (body: Omit<PlantInterviewInput, "study_id">) => ctx.states.plantInterview({ study_id: planted.id, ...body });
  const en = await make({ reference_id: "fields_en", language: "en", respondent_email: null });
  const de = await make({ reference_id: "fields_de", language: "de", respondent_email: "respondent@example.com" });
  // A regional English is English: its transcript carries no translation either.
  const gb = await make({ reference_id: "fields_en_gb", language: "en-GB", respondent_email: null });
  // Every language other than English carries translations, not German alone.
  const fr = await make({ reference_id: "fields_fr", language: "fr", respondent_email: null });
  const pt = await make({ reference_id: "fields_pt_br", language: "pt-BR", respondent_email: null });

  await ctx.part("interview status path", async () => {
    const held = await make({ reference_id: "fields_held", hold: true });
    const start = await ctx.http.req(`/v1/interviews/${held.id}`);
    ctx.expect(r["interview-statuses"], start.body?.status === "started", `a held simulated interview reads ${JSON.stringify(start.body?.status)}, not started`, start);
    ctx.expect(r["interview-statuses"], await listedUnder(ctx, "started", planted.id, held.id), `a started interview is not listed under status=started`, start);
    await ctx.states.completeInterview(held.id);
    const seen = new Set<string>();
    const done = await untilCompleted(ctx, held.id, seen);
    ctx.expect(r["interview-statuses"], done.body?.status === "completed" && [...seen].every((x) => ["processing", "completed"].includes(x)), `after completion the interview passed through ${JSON.stringify([...seen])}; expected processing then completed`, done);
    ctx.expect(r["interview-statuses"], await listedUnder(ctx, "completed", planted.id, held.id), `a completed interview is not listed under status=completed`, done);
  });

  await ctx.part("interviews opened through their link", async () => {
    const sep = String(study?.interview_link).includes("?") ? "&" : "?";
    const linked = await make({ interview_link: `${study?.interview_link}${sep}reference_id=fields_link` });
    const read = await ctx.http.req(`/v1/interviews/${linked.id}`);
    ctx.expect(r["reference-tag"], read.body?.reference_id === "fields_link", `an interview opened through ${study?.interview_link}${sep}reference_id=fields_link reads reference_id ${JSON.stringify(read.body?.reference_id)}`, read);
  });

  for (const [planted, reference, language, email] of [[en, "fields_en", "en", null], [de, "fields_de", "de", "respondent@example.com"], [gb, "fields_en_gb", "en-GB", null], [fr, "fields_fr", "fr", null], [pt, "fields_pt_br", "pt-BR", null]] as const) {
    const done = await untilCompleted(ctx, planted.id, new Set());
    ctx.conforms(done, "GET /v1/interviews/:id (planted)");
    const i = done.body;
    ctx.expect(r["planted-values"], i?.reference_id === reference, `interview planted with reference_id ${reference} reads ${JSON.stringify(i?.reference_id)}`, done);
    ctx.expect(r["planted-values"], String(i?.language).toLowerCase() === language.toLowerCase(), `interview planted in ${language} reads language ${JSON.stringify(i?.language)}`, done);
    if (email === null) ctx.expect(r["null-forms"], i?.respondent_email === null, `an interview with no email collected has respondent_email ${JSON.stringify(i?.respondent_email)}, not null`, done);
    else ctx.expect(r["planted-values"], i?.respondent_email === email, `respondent_email ${JSON.stringify(i?.respondent_email)}, planted ${email}`, done);
    judgeInterview(ctx, i, study, done);
    // An interview planted in a language other than English: its transcript carries the English translation of every entry.
    if (!isEnglish(language) && String(i?.language).toLowerCase() === language.toLowerCase()) {
      const transcript: any[] = Array.isArray(i.transcript) ? i.transcript : [];
      ctx.expect(r.translated, transcript.length > 0 && transcript.every((t) => typeof t?.translated === "string"), `interview ${i.id} is in ${language}, but ${transcript.filter((t) => typeof t?.translated !== "string").length} of its ${transcript.length} transcript entries carry no \`translated\``, done);
    }
  }
}

const tool = (id: string, state: string) => ({ type: "tool_use", id, name: "run_query", summary: `Query in state ${state}`, input: { sql: `select '${state}'` }, state });

async function plantedChats(ctx: Ctx): Promise<void> {
  const parts = [
    { type: "thinking", thinking: "Which table holds signups?" },
    { type: "redacted_thinking" },
    tool("toolu_available", "input_available"), tool("toolu_output", "output_available"), tool("toolu_error", "output_error"), tool("toolu_denied", "output_denied"),
    { type: "tool_result", tool_use_id: "toolu_output", content: [{ rows: 3 }], is_error: false },
    { type: "text", text: "Signups rose 12%." },
  ];
  const usage = { input_tokens: 1200, output_tokens: null, cache_read_input_tokens: 0, cache_creation_input_tokens: null, cost_usd: 0.0125 };
  // The third source is planted without rows and query: absent, they read back null (the seed: "null when absent").
  const sources = [{ id: "src_1", description: "signups table", rows: null, query: null }, { id: "src_2", description: "events table", rows: 42, query: "select 1" }, { id: "src_3", description: "funnel table" }];
  const sourcesRead = sources.map((x) => ({ rows: null, query: null, ...x }));
  const messages = [
    { role: "user", parts: [{ type: "text", text: "How did signups change?" }, { type: "file", url: "https://files.example.com/a.csv", media_type: "text/csv", filename: null }] },
    { role: "assistant", parts, sources, feedback: "positive", usage },
    { role: "assistant", parts: [{ type: "text", text: "Still thinking" }], feedback: "negative", streaming: true },
    { role: "system", parts: [{ type: "text", text: "Context refreshed." }] },
  ];
  const bare = await ctx.states.plantChat({ title: null, source: null, is_streaming: null, messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }] });
  // Planted with none of the optional fields: the service picks its own defaults, but every field is still there.
  const unset = await ctx.states.plantChat({ messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }] });
  const u = await ctx.http.req(`/v1/chats/${unset.id}`);
  const present = (v: unknown, form: string) => (form === "boolean" ? typeof v === "boolean" || v === null : typeof v === "string" || v === null);
  const absent = [["title", "string"], ["source", "string"], ["is_streaming", "boolean"]].filter(([field, form]) => !present(u.body?.[field], form));
  ctx.expect(r["null-forms"], u.status === 200 && absent.length === 0, `a chat planted without title, source and is_streaming reads ${JSON.stringify({ title: u.body?.title, source: u.body?.source, is_streaming: u.body?.is_streaming })}: ${absent.map(([f, form]) => `${f} must be there (${form} or null)`).join(", ")}`, u);
  const full = await ctx.states.plantChat({ title: "Signups", source: "analyst", is_streaming: true, messages: messages as PlantChatInput["messages"] });

  const b = await ctx.http.req(`/v1/chats/${bare.id}`);
  ctx.conforms(b, "GET /v1/chats/:id (planted)");
  for (const field of ["title", "source", "is_streaming"]) ctx.expect(r["null-forms"], b.body?.[field] === null, `a chat planted with ${field} null reads ${JSON.stringify(b.body?.[field])}`, b);
  const f = await ctx.http.req(`/v1/chats/${full.id}`);
  ctx.expect(r["planted-values"], f.body?.title === "Signups" && f.body?.source === "analyst" && f.body?.is_streaming === true, `a chat planted with title Signups, source analyst, is_streaming true reads ${JSON.stringify([f.body?.title, f.body?.source, f.body?.is_streaming])}`, f);
  judgeChat(ctx, f.body, f);

  const walk = await ctx.http.walk(`/v1/chats/${full.id}/messages`, 100);
  const got = walk.items;
  const reply = walk.pages[0];
  for (const page of walk.pages) ctx.conforms(page, "GET /v1/chats/:id/messages (planted)");
  judgeUpdatedAfterMessages(ctx, f, got);
  if (!ctx.expect(r["planted-values"], got.length === messages.length, `${got.length} messages read back of ${messages.length} planted`, reply)) return;
  const [user, assistant, streaming, system] = got;
  ctx.expect(r["planted-values"], same(user.parts, messages[0].parts), `the user message's parts read back as ${JSON.stringify(user.parts).slice(0, 300)}`, reply);
  ctx.expect(r["null-forms"], user.parts?.[1]?.filename === null, `a file part planted with filename null reads ${JSON.stringify(user.parts?.[1]?.filename)}`, reply);
  for (const field of ["sources", "feedback", "usage"]) ctx.expect(r["null-forms"], user[field] === null, `a user message planted without ${field} reads ${JSON.stringify(user[field])}, not null`, reply);
  ctx.expect(r["planted-values"], same(assistant.parts, parts), `the assistant message's parts (every tool_use state, in order) read back as ${JSON.stringify(assistant.parts).slice(0, 400)}`, reply);
  ctx.expect(r["planted-values"], same(assistant.sources, sourcesRead), `sources planted as ${JSON.stringify(sources)} read back as ${JSON.stringify(assistant.sources)}, not ${JSON.stringify(sourcesRead)}`, reply);
  ctx.expect(r["planted-values"], assistant.feedback === "positive" && streaming.feedback === "negative", `feedback positive and negative read back as ${JSON.stringify([assistant.feedback, streaming.feedback])}`, reply);
  ctx.expect(r["planted-values"], same(assistant.usage, usage), `usage read back as ${JSON.stringify(assistant.usage)}`, reply);
  ctx.expect(r["null-forms"], typeof assistant.completed_at === "string" && streaming.completed_at === null, `completed_at is ${JSON.stringify([assistant.completed_at, streaming.completed_at])}: a finished message has a time, a streaming one null`, reply);
  ctx.expect(r["null-forms"], streaming.usage === null && system.usage === null && system.feedback === null, `usage and feedback not recorded read ${JSON.stringify([streaming.usage, system.usage, system.feedback])}, not null`, reply);
  for (const m of got) if (m.role !== "assistant") ctx.expect(r["usage-roles"], m.usage === null, `a ${m.role} message has usage ${JSON.stringify(m.usage)}`, reply);
}

/** Parts as the service records them: raw tool transports, transient states and internal runtime parts. */
async function recordedParts(ctx: Ctx): Promise<void> {
  const call = (type: string, id: string, state: string) => ({ type, id, name: `${type}_tool`, summary: `${type} call`, input: { q: id }, state });
  const result = (type: string, id: string) => ({ type, tool_use_id: id, content: [{ from: type }], is_error: type === "mcp_tool_result" });
  const recorded = [
    { type: "text", text: "before" },
    { type: "compaction", summary: "earlier turns" },
    call("server_tool_use", "toolu_raw_server", "approval_requested"),
    result("web_search_tool_result", "toolu_raw_server"),
    { type: "container_upload", file_id: "file_123" },
    call("mcp_tool_use", "toolu_raw_mcp", "input_streaming"),
    result("mcp_tool_result", "toolu_raw_mcp"),
    call("tool_use", "toolu_transient", "approval_responded"),
    result("code_execution_tool_result", "toolu_transient"),
    { type: "hidden_branch", branch_id: "branch_1", parts: [{ type: "text", text: "not shown" }] },
    { type: "text", text: "after" },
  ];
  const planted = await ctx.states.plantChat({ title: ctx.states.name("Recorded parts"), messages: [{ role: "assistant", parts: recorded as PlantChatInput["messages"][number]["parts"] }] });
  const walk = await ctx.http.walk(`/v1/chats/${planted.id}/messages`, 100);
  const reply = walk.pages[0];
  ctx.conforms(reply, "GET /v1/chats/:id/messages (recorded parts)");
  const got: any[] = walk.items[0]?.parts ?? [];
  const publicCall = (id: string) => {
    const raw = recorded.find((p) => "id" in p && p.id === id) as { name: string; summary: string };
    return { type: "tool_use", id, name: raw.name, summary: raw.summary, input: { q: id }, state: "input_available" };
  };
  const publicResult = (type: string, id: string) => ({ type: "tool_result", tool_use_id: id, content: [{ from: type }], is_error: type === "mcp_tool_result" });
  const want = [
    { type: "text", text: "before" },
    publicCall("toolu_raw_server"), publicResult("web_search_tool_result", "toolu_raw_server"),
    publicCall("toolu_raw_mcp"), publicResult("mcp_tool_result", "toolu_raw_mcp"),
    publicCall("toolu_transient"), publicResult("code_execution_tool_result", "toolu_transient"),
    { type: "text", text: "after" },
  ];
  const hidden = got.filter((p) => ["compaction", "container_upload", "hidden_branch"].includes(p?.type) || JSON.stringify(p).includes("not shown"));
  ctx.expect(r["internal-hidden"], hidden.length === 0 && got[0]?.text === "before" && got[got.length - 1]?.text === "after", `internal parts returned: ${JSON.stringify(hidden).slice(0, 300)}; parts read ${JSON.stringify(got.map((p) => p?.type))}`, reply);
  const calls = got.filter((p) => p?.type === "tool_use");
  ctx.expect(r["transient-states"], calls.length === 3 && calls.every((p) => p.state === "input_available"), `tool calls recorded as approval_requested, input_streaming and approval_responded read ${JSON.stringify(calls.map((p) => p.state))}, not input_available`, reply);
  const normalized = want.slice(1, -1);
  const gotTools = got.filter((p) => p?.type !== "text");
  // The transport's shape is judged apart from the state (transient-states judges that).
  const sameShape = (g: any, w: any) => same(g?.type === "tool_use" ? { ...g, state: "input_available" } : g, w);
  ctx.expect(r.transports, gotTools.length === normalized.length && normalized.every((w, k) => sameShape(gotTools[k], w)), `raw tool transports read as ${JSON.stringify(gotTools).slice(0, 500)}; expected ${JSON.stringify(normalized).slice(0, 500)}`, reply);
}

/** Chat A is created before B but updated after it (three messages): B must still come first. */
async function chatOrder(ctx: Ctx): Promise<void> {
  const probe = await ctx.http.req("/v1/chats?limit=1");
  const now = Date.parse(probe.headers.get("date") ?? "") || Date.now();
  const t0 = now - 3_600_000;
  const msg = { role: "user" as const, parts: [{ type: "text" as const, text: "ping" }] };
  const a = await ctx.states.plantChat({ title: ctx.states.name("created first, updated last"), created_at: new Date(t0).toISOString(), messages: [msg, msg, msg, msg, msg] });
  const b = await ctx.states.plantChat({ title: ctx.states.name("created second"), created_at: new Date(t0 + 1).toISOString(), messages: [msg] });
  const [ra, rb] = [await ctx.http.req(`/v1/chats/${a.id}`), await ctx.http.req(`/v1/chats/${b.id}`)];
  const aMessages = await ctx.http.walk(`/v1/chats/${a.id}/messages`, 100);
  judgeUpdatedAfterMessages(ctx, ra, aMessages.items);
  if (!(Date.parse(ra.body?.updated_at) > Date.parse(rb.body?.updated_at))) ctx.note(`chat-order: the planted chats' updated_at (${ra.body?.updated_at}, ${rb.body?.updated_at}) do not differ in the probed order`);
  const walk = await ctx.http.walk("/v1/chats", 100);
  const ia = walk.items.findIndex((c) => c.id === a.id);
  const ib = walk.items.findIndex((c) => c.id === b.id);
  ctx.expect(r["chat-order"], ib >= 0 && ia > ib, `the chat created later (${b.id}) must be listed before the one created earlier and updated later (${a.id}): positions ${ib}, ${ia}`, walk.pages[0]);
}

export const fieldsCheck: Check = {
  name: "fields",
  description: "field meanings beyond types: null forms, 0-based indexes, chronological transcripts, usage by role, status paths, planted values read back",
  rules: r,
  operations: ["getInterview", "getStudy", "getChat", "listChatMessages"],
  async run(ctx) {
    await serverData(ctx);
    if (!ctx.options.sim && !ctx.options.states) return ctx.untested("planted field values", "needs --sim or --states (interviews, chats and messages planted with chosen values, null included)");
    await ctx.part("planted interviews", () => plantedInterviews(ctx));
    await ctx.part("planted chats", () => plantedChats(ctx));
    await ctx.part("recorded parts (raw transports, transient states, internal parts)", () => recordedParts(ctx));
    await ctx.part("chats planted at chosen instants", () => chatOrder(ctx));
  },
};
