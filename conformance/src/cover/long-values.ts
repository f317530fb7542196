/**
 * Values at length, every run. The seed caps only three values (a tool_use's input, a tool_result's content and a
 * source's query, nulled past 32 KB) and calls everything else stable; a column or a buffer that caps a name, a title
 * or a text at 100, 255, 4096 or 32000 characters or 64 KiB changes what the service was given. Short values never show
 * it, so each free text is planted long, past those sizes (and past the payload cap where nothing caps it), with
 * characters beyond ASCII in it, and read back byte for byte on retrieval and in its list: a study's name at the
 * contract's longest and fifty long questions; a chat's title; a message's text and thinking past 64 KiB (twice the
 * payload cap), a tool's name, summary and id, a file's URL, name and media type, a source's description and id and a
 * chat's source (ids and short strings too), a language code of four subtags; a release's title and
 * description at the contract's longest. And in number (twelve languages, fifty questions answered, fifty parts and
 * sources) and repeated (identical parts, sources of one id, a question twice): each kept, none merged.
 */
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import { fieldsDiffer, firstDifference } from "../judge/same.ts";
import type { PlantChatInput } from "../states/types.ts";
import { textOfLength, type CoverEnv, type Unit } from "./unit.ts";
import { r } from "./rules.ts";

type Part = PlantChatInput["messages"][number]["parts"][number];

/**
 * Twelve language codes, some with a region: a list cut at 5 or 10 shows. One is long (four subtags, 19 characters):
 * a column of a language code's usual 5 to 16 characters cuts it. The interview of the study runs in it.
 */
const LONG_LANGUAGE = "zh-Hant-HK-1994abcd";
const LANGUAGES = ["en", "de", "fr", "es", "it", "pt-BR", "nl", "sv", "ja", "ko", LONG_LANGUAGE, "ar"];

/** Characters of the long text and thinking: 67,932 bytes, past twice the payload cap and past 64 KiB (a TEXT column). */
const LONG_TEXT = 66_600;

const CLASSES = {
  study: "a study's name at 200 characters, 50 questions of 1,000 and 12 languages",
  answers: "an interview of it answering all 50 questions",
  many: "a message of 50 parts and 50 sources",
  repeats: "repeats kept: two identical parts, two sources of one id, a question twice",
  title: "a chat's title of 5,000 characters",
  text: "text and thinking past the payload cap",
  fields: "a tool's name, summary and id, a file's URL, name and media type, a source's description and id, a chat's source, long",
  release: "a release's title at 1,000 characters and description at 65,536",
};

export const longValues: Unit = {
  name: "long-values",
  doc: "free text planted long and read back byte for byte, never cut, nulled or marked truncated: a study's name at 200 characters and 50 questions of 1,000 (retrieval and list), a chat's title of 5,000 (retrieval and list), a message's text and thinking past 64 KiB (twice the payload cap), a tool's name, summary and id, a file's URL, name and media type, a source's description and id, a chat's source, a language code of 19 characters, and a release's title at 1,000 characters and description at 65,536; a study of 12 languages and 50 questions all answered, a message of 50 parts and 50 sources; two identical parts, two sources of one id and a question asked twice, each kept",
  needs: [],
  rules: [r["long-values"]],
  classes: (ctx) => [
    ...(ctx.states.has("plant-study") ? [CLASSES.study] : []),
    ...(ctx.states.has("plant-study", "plant-interview", "hold", "complete") ? [CLASSES.answers] : []),
    ...(ctx.states.has("plant-chat") ? [CLASSES.title, CLASSES.text, CLASSES.fields, CLASSES.many] : []),
    ...(ctx.states.has("plant-study", "plant-chat") ? [CLASSES.repeats] : []),
    ...(ctx.states.has("plant-release") ? [CLASSES.release] : []),
  ],
  async run(env) {
    const { ctx } = env;
    if (ctx.states.has("plant-study")) await study(env);
    if (ctx.states.has("plant-chat")) await chats(env);
    if (ctx.states.has("plant-release")) await release(env);
    if (ctx.states.has("plant-study", "plant-chat")) await repeats(env);
  },
};

/** Judges `got`'s fields named in `want` against it; returns whether they agree. */
function judge(env: CoverEnv, what: string, got: any, want: Record<string, unknown>, reply: Parameters<CoverEnv["expect"]>[3]): boolean {
  const differs = reply && reply.status !== 200 ? `answered ${reply.status}` : got === undefined ? "not listed" : fieldsDiffer(got, want);
  return env.expect(r["long-values"], !differs, `${what} does not read back as planted: ${differs}`, reply);
}

async function study(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  // The contract's longest name (200 characters), the run's id it is given included.
  const base = textOfLength(200 - ctx.states.name("").length, "Long study name ");
  const name = ctx.states.name(base);
  const questions = Array.from({ length: 50 }, (_, k) => ({ text: textOfLength(1000, `Question ${k + 1}: why? `) }));
  const { id } = await ctx.states.plantStudy({ name: base, questions, supported_languages: LANGUAGES, weekly_limit: null, monthly_limit: null }, env.project);
  const read = await env.req(`/v1/studies/${id}`);
  // The languages as a set: the seed does not fix their order.
  const languages = (body: any) => (Array.isArray(body?.supported_languages) ? [...body.supported_languages].sort() : body?.supported_languages);
  let ok = judge(env, `study ${id} (its name of 200 characters, 50 questions of 1,000, ${LANGUAGES.length} languages)`, { ...read.body, supported_languages: languages(read.body) }, { name, questions, supported_languages: [...LANGUAGES].sort() }, read);
  const list = await env.http.walk("/v1/studies", 100);
  const item = list.items.find((s: any) => s?.id === id);
  ok = judge(env, `study ${id} in GET /v1/studies`, item && { ...item, supported_languages: languages(item) }, { name, supported_languages: [...LANGUAGES].sort() }, list.pages[0]) && ok;
  if (ok) env.reach(CLASSES.study, r["long-values"].cites);
  if (!ctx.states.has("plant-interview", "hold", "complete")) return;
  // An interview of it completed: one answer per question, all fifty, in the questions' order.
  const { id: interview } = await ctx.states.plantInterview({ study_id: id, hold: true, language: LONG_LANGUAGE }, env.project);
  await ctx.states.completeInterview(interview, env.project);
  const done = (await untilCompleted(env.http, interview, completionWaitMs(ctx.options))).reply;
  const answers: any[] = Array.isArray(done.body?.question_answers) ? done.body.question_answers : [];
  const shown = answers.map((a) => [a?.question_index, a?.question_text]);
  const want = questions.map((q, k) => [k, q.text]);
  const differs = done.status !== 200 ? `answered ${done.status}` : done.body?.status !== "completed" ? `still ${done.body?.status}` : firstDifference(shown, want) || firstDifference(done.body?.language, LONG_LANGUAGE, "/language");
  if (env.expect(r["long-values"], !differs, `interview ${interview} of a study of 50 questions of 1,000 characters, run in ${LONG_LANGUAGE}, does not answer each of them, in order, with its text (question_index, question_text), or in its language: ${differs}`, done)) env.reach(CLASSES.answers, r["long-values"].cites);
}

async function chats(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  // The title, and text and thinking past twice the payload cap and past 64 KiB (67,932 bytes each, 2-byte letters among
  // them): the cap nulls a tool's input, a result's content and a source's query, never text, and no column width cuts
  // it. Text and thinking in two chats, each plant within a request body of 100 KB.
  const title = textOfLength(5000, "A long chat title ");
  const [longText, longThinking] = [textOfLength(LONG_TEXT, "Text past the cap "), textOfLength(LONG_TEXT, "Thinking past the cap ")];
  const text: Part[] = [{ type: "text", text: longText }];
  const thinking: Part[] = [{ type: "thinking", thinking: longThinking }];
  const first = await ctx.states.plantChat({ title, messages: [{ role: "assistant", parts: text }] }, env.project);
  const read = await env.req(`/v1/chats/${first.id}`);
  let ok = judge(env, `chat ${first.id} (a title of 5,000 characters)`, read.body, { title }, read);
  const list = await env.http.walk("/v1/chats", 100);
  ok = judge(env, `chat ${first.id} in GET /v1/chats`, list.items.find((c: any) => c?.id === first.id), { title }, list.pages[0]) && ok;
  if (ok) env.reach(CLASSES.title, r["long-values"].cites);
  const messages = await env.http.walk(`/v1/chats/${first.id}/messages`, 100);
  ok = judge(env, `the message of chat ${first.id} (a text of ${LONG_TEXT} characters, ${Buffer.byteLength(longText)} bytes)`, messages.items[0], { parts: text }, messages.pages[0]);
  const thinkingChat = await ctx.states.plantChat({ title: "Long thinking", messages: [{ role: "assistant", parts: thinking }] }, env.project);
  const thought = await env.http.walk(`/v1/chats/${thinkingChat.id}/messages`, 100);
  ok = judge(env, `the message of chat ${thinkingChat.id} (a thinking of ${LONG_TEXT} characters, ${Buffer.byteLength(longThinking)} bytes)`, thought.items[0], { parts: thinking }, thought.pages[0]) && ok;
  if (ok) env.reach(CLASSES.text, r["long-values"].cites);
  // A tool's name, summary and id (and the result's reference to it), a file's URL, name and media type, a source's
  // description and id, the chat's source: none of them capped by the seed, ids and short strings included.
  const toolId = `toolu_${"long".repeat(62)}`;
  const parts: Part[] = [
    { type: "tool_use", id: toolId, name: textOfLength(200, "long_tool_name_"), summary: textOfLength(5000, "A long summary. "), input: { q: "short" }, state: "output_available" } as Part,
    { type: "tool_result", tool_use_id: toolId, content: "ok", is_error: false } as Part,
    { type: "file", url: `https://files.example.com/${"segment/".repeat(240)}long.csv`, media_type: `text/csv; charset=utf-8; header=present; ${"x-option=long; ".repeat(14)}end=1`, filename: textOfLength(1000, "long file name ") },
  ];
  const sources = [{ id: `src_${"long".repeat(62)}`, description: textOfLength(5000, "A long description. "), rows: 3, query: "SELECT 1" }];
  const source = `web_${"long".repeat(30)}`;
  const second = await ctx.states.plantChat({ title: "Long fields", source, messages: [{ role: "assistant", parts, sources }] }, env.project);
  const fields = await env.http.walk(`/v1/chats/${second.id}/messages`, 100);
  const chatRead = await env.req(`/v1/chats/${second.id}`);
  ok = judge(env, `chat ${second.id} (a source of ${source.length} characters)`, chatRead.body, { source }, chatRead);
  if (judge(env, `the message of chat ${second.id} (a tool's name, summary and id, a file's URL, name and media type, a source's description and id, long)`, fields.items[0], { parts, sources }, fields.pages[0]) && ok) env.reach(CLASSES.fields, r["long-values"].cites);
  // As many parts and sources as a message takes (the contract's 50 of each), every one kept, in order.
  const many: Part[] = Array.from({ length: 50 }, (_, k) => ({ type: "text", text: `part ${k + 1}` }));
  const cited = Array.from({ length: 50 }, (_, k) => ({ id: `src_${k + 1}`, description: `source ${k + 1}`, rows: k, query: `SELECT ${k + 1}` }));
  const third = await ctx.states.plantChat({ title: "Many parts", messages: [{ role: "assistant", parts: many, sources: cited }] }, env.project);
  const listed = await env.http.walk(`/v1/chats/${third.id}/messages`, 100);
  if (judge(env, `the message of chat ${third.id} (50 parts, 50 sources)`, listed.items[0], { parts: many, sources: cited }, listed.pages[0])) env.reach(CLASSES.many, r["long-values"].cites);
}

async function release(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  // The contract's longest title and description.
  const input = { vcs_pr_number: 7, vcs_pr_title: textOfLength(1000, "A long pull request title "), vcs_pr_description: textOfLength(65_536, "A long description.\r\n"), vcs_pr_author: "long-author", status: "active" as const, merged_at: new Date(Date.now() - 86_400_000).toISOString() };
  const { id } = await ctx.states.plantRelease(input, env.project);
  const read = await env.req(`/v1/releases/${id}`);
  let ok = judge(env, `release ${id} (a title of 1,000 characters, a description of 65,536)`, read.body, { vcs_pr_title: input.vcs_pr_title, vcs_pr_description: input.vcs_pr_description }, read);
  const list = await env.http.walk("/v1/releases", 100);
  ok = judge(env, `release ${id} in GET /v1/releases`, list.items.find((x: any) => x?.id === id), { vcs_pr_title: input.vcs_pr_title }, list.pages[0]) && ok;
  if (ok) env.reach(CLASSES.release, r["long-values"].cites);
}

/**
 * Repeats are values too: two identical parts of a message, two sources citing one id, a question asked twice. A server
 * that keys them by content or id keeps one.
 */
async function repeats(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  const questions = [{ text: "Same question?" }, { text: "Same question?" }, { text: "Another one?" }];
  const { id } = await ctx.states.plantStudy({ name: "Repeats", questions, weekly_limit: null, monthly_limit: null }, env.project);
  const read = await env.req(`/v1/studies/${id}`);
  let ok = judge(env, `study ${id} (a question asked twice)`, read.body, { questions }, read);
  const parts: Part[] = [{ type: "text", text: "said twice" }, { type: "text", text: "said twice" }, { type: "thinking", thinking: "thought" }];
  const sources = [{ id: "src_same", description: "cited", rows: 1, query: "SELECT 1" }, { id: "src_same", description: "cited", rows: 1, query: "SELECT 1" }, { id: "src_other", description: "cited again", rows: 2, query: "SELECT 2" }];
  const chat = await ctx.states.plantChat({ title: "Repeats", messages: [{ role: "assistant", parts, sources }] }, env.project);
  const listed = await env.http.walk(`/v1/chats/${chat.id}/messages`, 100);
  ok = judge(env, `the message of chat ${chat.id} (two identical parts, two sources of one id)`, listed.items[0], { parts, sources }, listed.pages[0]) && ok;
  if (ok) env.reach(CLASSES.repeats, r["long-values"].cites);
}
