/**
 * Every enum value of a message, every run, each read back whole: every role with usage recorded (served only on
 * assistant messages), every feedback value, every part type, every tool_use state, tool results erring or not; zeros
 * and empties (no tokens and no cost, a source of 0 rows and an empty query, an empty input, falsy results, empty and
 * space-padded text); usage recorded without a cost (still usage, its nulls kept); and
 * each message's created_at and completed_at (a message that finished streaming after it was recorded, the first one
 * only after every later one was recorded and finished: still listed first) where the target plants instants, and its
 * chat's updated_at not before the last of them (the last message finished after every message was recorded); every
 * raw tool transport and transient state at 32768 bytes (kept) and 32769 (truncated),
 * with sources the same;
 * a file recorded without a name (filename null), a file URL of %XX escapes, + and a fragment (never decoded), markup,
 * quotes, a CRLF and padding in every text of a message (never escaped, folded or trimmed), and
 * citations recorded as an empty list (sources null); row and token counts at every width a store may cut them to,
 * and drawn from the contract's domain (a usage whose every field is null is left out of the draws: whether it reads as
 * usage or as none, the seed does not say).
 */
import type { PlantChatInput } from "../states/types.ts";
import { fieldsDiffer, firstDifference } from "../judge/same.ts";
import { sizedString, type CoverEnv, type Unit } from "./unit.ts";
import { r } from "./rules.ts";
import { TOOL_STATES as STATES } from "../judge/shown.ts";
import fc from "fast-check";
import { integerBounds, integerDomain, integerEdges, propertySchema } from "./domain.ts";

type Msg = PlantChatInput["messages"][number];
type Part = Msg["parts"][number];

// A cost to the twelfth decimal: a price per token is a fraction of a cent, never rounded.
// And the most tokens the contract carries (int32): a count is never capped.
const USAGE = { input_tokens: 1200, output_tokens: 2147483647, cache_read_input_tokens: 0, cache_creation_input_tokens: null, cost_usd: 0.012345678901 };
const ROLES = ["user", "assistant", "system"] as const;
const FEEDBACK = ["positive", "negative", null] as const;

/** Raw tool transports as the service records them (the suite's names), and the public part each reads as. */
const RAW_CALLS = ["server_tool_use", "mcp_tool_use"] as const;
const RAW_RESULTS = ["web_search_tool_result", "code_execution_tool_result", "mcp_tool_result"] as const;
const TRANSIENT = ["input_streaming", "approval_requested", "approval_responded"] as const;

/** A tool input (an object) whose JSON encoding is exactly `bytes` bytes of UTF-8, with a 3-byte character at the end. */
const sizedInput = (bytes: number) => ({ q: sizedString(bytes - '{"q":}'.length, "€") });
const TRUNCATED = { truncated: true, truncation_reason: "size_limit_32kb" };

function publicParts(): { planted: Part[]; want: unknown[] } {
  const planted: Part[] = [
    { type: "text", text: "plain text ✓ 😀" },
    { type: "thinking", thinking: "considering" },
    { type: "redacted_thinking" },
    // A media type with parameters, kept whole (never cut at its ";").
    { type: "file", url: "https://files.example.com/a.csv", media_type: "text/csv; charset=utf-8; header=present", filename: "a.csv" },
    { type: "file", url: "https://files.example.com/b.png", media_type: "image/PNG", filename: null },
    { type: "file", url: "https://files.example.com/c.bin", media_type: "application/octet-stream" },
    ...STATES.map((state, k) => ({ type: "tool_use", id: `toolu_state_${k}`, name: "query", summary: `a call left ${state}`, input: { k }, state }) as Part),
    // An array with repeated items, kept as recorded: a store that keeps an array as a set collapses them.
    { type: "tool_result", tool_use_id: "toolu_state_1", content: [{ rows: 3 }, { rows: 3 }, "row", "row"], is_error: false },
    { type: "tool_result", tool_use_id: "toolu_state_2", content: "failed", is_error: true },
  ];
  // A file recorded without a name reads `filename: null` ("null if none given"), not without the field.
  const want = planted.map((p) => (p.type === "file" && !("filename" in p) ? { ...p, filename: null } : p));
  return { planted, want };
}

/**
 * Markup, quotes, line ends, padding and characters beyond the BMP (four bytes in UTF-8, which a column of three-byte
 * UTF-8 stores as "?") in every text a message carries: kept byte for byte, never escaped for HTML, folded to LF,
 * trimmed or narrowed (a tool's input and result are tool-specific, but the API passes them through).
 */
const MARKUP = "  <b>bold</b> & <i>\"q\"</i> 'a'\r\nline two 𝄞😀\t ";
function markupValues(): { parts: Part[]; sources: NonNullable<Msg["sources"]> } {
  return {
    parts: [
      { type: "text", text: MARKUP },
      { type: "thinking", thinking: MARKUP },
      { type: "tool_use", id: "toolu_markup", name: "query_😀", summary: MARKUP, input: { q: MARKUP, list: [MARKUP, " padded "], nested: { s: MARKUP } }, state: "output_available" } as Part,
      { type: "tool_result", tool_use_id: "toolu_markup", content: MARKUP, is_error: false } as Part,
      { type: "tool_result", tool_use_id: "toolu_markup", content: { rows: [MARKUP] }, is_error: false } as Part,
      { type: "file", url: "https://files.example.com/markup.html", media_type: "text/html", filename: MARKUP },
    ],
    sources: [{ id: "src_markup", description: MARKUP, rows: 2, query: `SELECT '<a>' AS x, 1 & 3 AS y\r\nFROM t  ` }],
  };
}

const ZERO_USAGE = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0 };
/** Usage recorded in part: each field is "integer or null" (the cost "number or null"), so a usage without a cost is still one. */
const PARTIAL_USAGE = { input_tokens: 7, output_tokens: null, cache_read_input_tokens: null, cache_creation_input_tokens: null, cost_usd: null };

/**
 * A tool's input and result at JSON's edges, passed through as recorded: nulls and empties as members and as items,
 * repeated items, an empty key, the key `__proto__` (an own member, as JSON.parse makes it: a copy made by assignment loses it) and 40
 * levels of nesting.
 */
const jsonEdges = (): Record<string, unknown> => JSON.parse(`{"n":null,"list":[],"obj":{},"items":[null,0,"",false,[],{}],"twice":[1,1,"a","a",{"k":1},{"k":1}],"":"an empty key","__proto__":{"x":1},"deep":${"[".repeat(40)}1${"]".repeat(40)}}`);

/** Zeros and empties, each a value the API must keep: planted and read the same. */
function edgeValues(): { parts: Part[]; sources: NonNullable<Msg["sources"]> } {
  // Ids and URLs in mixed case: kept as given.
  const results = ["", 0, false, [], {}].map((content, k) => ({ type: "tool_result", tool_use_id: "Toolu_Empty", content, is_error: k % 2 === 1 }) as Part);
  return {
    parts: [
      { type: "text", text: "" },
      { type: "text", text: "  spaces at both ends \t\n" },
      // Kept byte for byte: a CRLF not folded to LF, a decomposed accent not composed, case kept.
      { type: "text", text: "CRLF\r\nline, e\u0301 decomposed, MiXeD" },
      { type: "thinking", thinking: " " },
      { type: "tool_use", id: "Toolu_Empty", name: "NoOp_Tool", summary: "", input: {}, state: "output_available" } as Part,
      { type: "file", url: "https://files.example.com/Empty-Name", media_type: "text/plain", filename: "" },
      // Every character a URL treats specially, kept as recorded: decoding %XX (or + as a space) names another file.
      { type: "file", url: "https://files.example.com/r%C3%A9sum%C3%A9%20v2+final%2Fdraft%41.pdf?sig=a%2Bb%3D&v=1+2#p%25", media_type: "application/pdf", filename: "résumé v2+final.pdf" },
      ...results,
      { type: "tool_use", id: "Toolu_Json", name: "json_edges", summary: "JSON's edges", input: jsonEdges(), state: "output_available" } as Part,
      { type: "tool_result", tool_use_id: "Toolu_Json", content: jsonEdges(), is_error: false } as Part,
    ],
    sources: [{ id: "Src_Zero", description: " ", rows: 0, query: "" }],
  };
}

/** Every raw transport and transient state at both sides of the cap: what is planted and what must be read. */
function rawParts(): { planted: Part[]; want: unknown[]; classes: string[] } {
  const planted: any[] = [];
  const want: unknown[] = [];
  const classes: string[] = [];
  for (const [k, type] of RAW_CALLS.entries()) {
    for (const bytes of [32768, 32769]) {
      const id = `toolu_${type}_${bytes}`;
      const state = TRANSIENT[(k + bytes) % TRANSIENT.length];
      planted.push({ type, id, name: `${type}_tool`, summary: `${type} at ${bytes} bytes`, input: sizedInput(bytes), state });
      want.push({ type: "tool_use", id, name: `${type}_tool`, summary: `${type} at ${bytes} bytes`, state: "input_available", ...(bytes > 32768 ? { input: null, ...TRUNCATED } : { input: sizedInput(bytes) }) });
      classes.push(`${type} at ${bytes} bytes`);
    }
  }
  for (const type of RAW_RESULTS) {
    for (const bytes of [32768, 32769]) {
      const id = `toolu_${type}_${bytes}`;
      const is_error = type === "mcp_tool_result";
      planted.push({ type, tool_use_id: id, content: sizedInput(bytes), is_error });
      want.push({ type: "tool_result", tool_use_id: id, is_error, ...(bytes > 32768 ? { content: null, ...TRUNCATED } : { content: sizedInput(bytes) }) });
      classes.push(`${type} at ${bytes} bytes`);
    }
  }
  return { planted, want, classes };
}

async function readMessages(env: CoverEnv, chatId: string) {
  const walk = await env.http.walk(`/v1/chats/${chatId}/messages`, 100);
  return { items: walk.items, reply: walk.pages[0] };
}

async function rolesAndParts(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  const fields = ctx.states.has("chat-fields");
  const { planted: parts, want: wantParts } = publicParts();
  const msgs: Msg[] = [];
  const want: Array<{ role: string; parts: unknown[]; feedback: unknown; usage: unknown; sources?: unknown; cls: string[] }> = [];
  for (const role of ROLES) {
    for (const feedback of fields ? FEEDBACK : [null]) {
      msgs.push({ role, parts: role === "assistant" ? parts : [{ type: "text", text: `a ${role} message` }], ...(fields ? { feedback, usage: USAGE } : {}) });
      want.push({ role, parts: role === "assistant" ? wantParts : [{ type: "text", text: `a ${role} message` }], feedback, usage: role === "assistant" && fields ? USAGE : null, cls: [`role ${role}`, ...(fields ? [`feedback ${feedback}`, `usage on ${role}`] : [])] });
    }
  }
  // Internal runtime parts between two public ones: never returned ("Internal runtime parts ... are never returned").
  if (ctx.states.has("recorded-parts")) {
    const internal: any[] = [{ type: "compaction", summary: "earlier turns" }, { type: "container_upload", file_id: "file_cover" }, { type: "hidden_branch", branch_id: "branch_cover", parts: [{ type: "text", text: "unseen" }] }];
    msgs.push({ role: "assistant", parts: [{ type: "text", text: "before" }, ...internal, { type: "text", text: "after" }] });
    want.push({ role: "assistant", parts: [{ type: "text", text: "before" }, { type: "text", text: "after" }], feedback: null, usage: null, cls: ["internal runtime parts"] });
  }
  // Zeros and empties are values, kept as recorded: no token and no cost (0, not null), a source of 0 rows and an empty
  // query, a tool call with no input ({}) and a mixed-case name, tool results of "", 0, false, [] and {}, a file named
  // "" (not null), empty text and text with spaces at both ends, a CRLF and a decomposed accent (never normalized), a
  // file URL holding %XX escapes, + and a fragment (never decoded).
  const edge = edgeValues();
  msgs.push({ role: "assistant", parts: edge.parts, sources: edge.sources, ...(fields ? { usage: ZERO_USAGE } : {}) });
  want.push({ role: "assistant", parts: edge.parts, sources: edge.sources, feedback: null, usage: fields ? ZERO_USAGE : null, cls: ["zeros and empties", "a file URL of escapes, + and a fragment", "JSON's edges in a tool's input and result", ...(fields ? ["usage of zeros"] : [])] });
  const markup = markupValues();
  msgs.push({ role: "assistant", parts: markup.parts, sources: markup.sources, ...(fields ? { usage: PARTIAL_USAGE } : {}) });
  want.push({ role: "assistant", parts: markup.parts, sources: markup.sources, feedback: null, usage: fields ? PARTIAL_USAGE : null, cls: ["markup, quotes, CRLF and padding in every text", ...(fields ? ["usage without a cost"] : [])] });
  // Citations recorded as an empty list are none: sources reads null ("null when none"), never [].
  msgs.push({ role: "assistant", parts: [{ type: "text", text: "no citations" }], sources: [] });
  want.push({ role: "assistant", parts: [{ type: "text", text: "no citations" }], feedback: null, usage: null, cls: ["sources empty"] });
  // Where the target plants instants: each message recorded a second after the one before and finished streaming a
  // little after it was recorded (completed_at is "when streaming finished", not when recorded), in a chat from ten
  // minutes ago; each read back to the millisecond.
  const base = Date.now() - 600_000;
  // The first one finished streaming only after every later one was recorded and finished (an answer streamed while
  // the user wrote on): the list is chronological by recording, so it stays first.
  const times = msgs.map((_, k) => ({ created_at: new Date(base + (k + 1) * 1_000).toISOString(), completed_at: new Date(base + (k + 1) * 1_000 + 300 + k + (k === 0 ? msgs.length * 1_000 : 0)).toISOString() }));
  const planted = fields ? msgs.map((m, k) => ({ ...m, ...times[k] })) : msgs;
  const chat = await ctx.states.plantChat({ title: "Every role, feedback and part", messages: planted, ...(fields ? { created_at: new Date(base).toISOString() } : {}) }, env.project);
  const { items, reply } = await readMessages(env, chat.id);
  env.expect(r["message-whole"], items.length === want.length, `a chat of ${want.length} messages lists ${items.length}`, reply);
  const listedIds = items.map((m: any) => m?.id);
  env.expect(r["message-whole"], listedIds.join() === chat.message_ids.slice(0, items.length).join(), `a chat's messages are not listed in the order they were recorded (oldest created_at first${fields ? "; the first finished streaming last" : ""}): listed ${JSON.stringify(listedIds.map((id: string) => chat.message_ids.indexOf(id) + 1))} of messages 1 to ${chat.message_ids.length}`, reply);
  for (const [k, w] of want.entries()) {
    const got = items[k];
    if (!got) continue;
    const predicted = { id: chat.message_ids[k], object: "message", chat_id: chat.id, role: w.role, parts: w.parts, feedback: w.feedback, usage: w.usage, sources: w.sources ?? null };
    // Instants compared as instants: their form is judged apart (fields.timestamps).
    const instants = fields ? Object.entries(times[k]).filter(([f, t]) => Date.parse(got[f]) !== Date.parse(t)).map(([f, t]) => `${f} is ${JSON.stringify(got[f])}, planted ${t}`) : [];
    const differs = fieldsDiffer(got, predicted) || instants.join("; ");
    env.expect(r["message-whole"], !differs, `message ${k + 1} (${w.role}, feedback ${w.feedback}${fields ? ", usage recorded" : ""}) reads differently than planted: ${differs}`, reply, { got });
    for (const cls of w.cls) env.reach(cls, r["message-whole"].cites);
  }
  env.reach("every part type and tool state", r["message-whole"].cites);
  if (!fields) return;
  env.reach("completed after recorded", r["message-whole"].cites);
  if (items[0]?.id === chat.message_ids[0] && items.length === want.length) env.reach("finished after later ones were recorded, listed first", r["message-whole"].cites);
  // The last message finished streaming after every message was recorded: that is the chat's most recent update.
  const latest = Math.max(...times.flatMap((t) => [Date.parse(t.created_at), Date.parse(t.completed_at)]));
  const read = await env.req(`/v1/chats/${chat.id}`);
  const updated = Date.parse(read.body?.updated_at);
  env.expect(r["chat-updated"], read.status === 200 && updated >= latest, `a chat whose last message was recorded at ${times[times.length - 1].created_at} and finished streaming at ${new Date(latest).toISOString()} reads updated_at ${JSON.stringify(read.body?.updated_at)} (${read.status}): its most recent update is not before that`, read);
  if (read.status === 200) env.reach("chat updated by a message finished after it was recorded", r["chat-updated"].cites);
}

async function transports(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  const { planted, want, classes } = rawParts();
  // One chat per part (a service may cap a request's body near 100 KB): each read whole and predicted.
  await Promise.all(planted.map(async (part, k) => {
    const chat = await ctx.states.plantChat({ title: `Raw transport: ${classes[k]}`, messages: [{ role: "assistant", parts: [part] }] }, env.project);
    const { items, reply } = await readMessages(env, chat.id);
    const got: any[] = items[0]?.parts ?? [];
    const differs = got.length === 1 ? firstDifference(got[0], want[k]) : `${got.length} parts: ${JSON.stringify(got.map((p) => p?.type))}`;
    env.expect(r["transport-truncated"], !differs, `the raw transport ${classes[k]} reads differently than predicted: ${differs}`, reply);
    env.reach(classes[k], r["transport-truncated"].cites);
  }));
  const sources = [32768, 32769].map((bytes) => ({ id: `src_${bytes}`, description: `a query of ${bytes} bytes`, rows: 7, query: sizedString(bytes, "é") }));
  const chat = await ctx.states.plantChat({ title: "Sources at the cap", messages: [{ role: "assistant", parts: [{ type: "text", text: "cited" }], sources }] }, env.project);
  const { items, reply } = await readMessages(env, chat.id);
  const src: any[] = items[0]?.sources ?? [];
  const kept = src[0];
  env.expect(r["transport-truncated"], kept?.query === sources[0].query && kept?.truncated === undefined && kept?.rows === 7, `a source query of exactly 32768 bytes reads ${JSON.stringify({ ...kept, query: typeof kept?.query === "string" ? `${kept.query.length} characters` : kept?.query })}, not kept whole`, reply);
  const cut = src[1];
  // rows may be null on a truncated source (the seed: "and rows may be null").
  env.expect(r["transport-truncated"], cut?.query === null && cut?.truncated === true && cut?.truncation_reason === "size_limit_32kb" && (cut?.rows === 7 || cut?.rows === null), `a source query of 32769 bytes reads ${JSON.stringify({ ...cut, query: typeof cut?.query === "string" ? `${cut.query.length} characters` : cut?.query })}, not nulled with truncated and size_limit_32kb`, reply);
  env.reach("sources at 32768 and 32769 bytes", r["transport-truncated"].cites);
}

/** A cost drawn with up to twelve decimals (a price per token is a fraction of a cent), up to a thousand dollars. */
const COST = fc.oneof(fc.constantFrom(0, 0.01, 0.012345678901, 999.999999999999), fc.integer({ min: 0, max: 10 ** 15 }).map((n) => n / 10 ** 12));
const USAGE_FIELDS = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const;

/**
 * Counts at every width a store may cut them to, every run: a source at each edge of the contract's `rows` (past 8,
 * 16 and 24 bits, the first integer a 32-bit float cannot hold, the widest) and a usage of the widest tokens, each field
 * its own value so a swap shows too; then usage and row counts drawn from the contract's domain, biased to the same
 * edges, each read back exactly. Shrinks to the smallest count that fails.
 */
async function widths(env: CoverEnv): Promise<void> {
  const { ctx } = env;
  const fields = ctx.states.has("chat-fields");
  const rowsSchema = propertySchema(ctx.contract, "SimSourceInput", "rows");
  const tokenSchema = (f: string) => propertySchema(ctx.contract, "MessageUsage", f);
  const plantRead = async (title: string, sources: NonNullable<Msg["sources"]>, usage: Msg["usage"] | null) => {
    const chat = await ctx.states.plantChat({ title, messages: [{ role: "assistant", parts: [{ type: "text", text: title }], sources, ...(usage ? { usage } : {}) }] }, env.project);
    const { items, reply } = await readMessages(env, chat.id);
    const predicted = { id: chat.message_ids[0], object: "message", chat_id: chat.id, role: "assistant", parts: [{ type: "text", text: title }], sources, usage, feedback: null };
    return { differs: items.length === 1 ? fieldsDiffer(items[0], predicted) : `the chat lists ${items.length} messages, not 1`, reply, got: items[0] };
  };
  const sources = integerEdges(rowsSchema).map((rows, k) => ({ id: `src_rows_${k}`, description: `a source of ${rows} rows`, rows, query: `SELECT ${rows}` }));
  const widest = fields ? Object.fromEntries([...USAGE_FIELDS.map((f, k) => [f, integerBounds(tokenSchema(f)).max - k]), ["cost_usd", 21474.83647]]) as Msg["usage"] : null;
  const fixed = await plantRead("Counts at every width", sources, widest);
  env.expect(r["message-whole"], !fixed.differs, `a message whose sources count ${sources.map((x) => x.rows).join(", ")} rows${widest ? ` and whose usage is ${JSON.stringify(widest)}` : ""} reads differently than planted: ${fixed.differs}`, fixed.reply, { got: fixed.got });
  env.reach("counts at every storage width", r["message-whole"].cites);
  const count = (schema: any) => fc.option(integerDomain(schema), { nil: null, freq: 5 });
  const drawn = fc.record({
    rows: fc.array(count(rowsSchema), { minLength: 1, maxLength: 3 }),
    usage: fields ? fc.record({ ...Object.fromEntries(USAGE_FIELDS.map((f) => [f, count(tokenSchema(f))])), cost_usd: fc.option(COST, { nil: null, freq: 5 }) }).filter((u) => Object.values(u).some((v) => v !== null)) : fc.constant(null),
  });
  let n = 0;
  await ctx.holds("usage and row counts drawn from the contract's domain", drawn, async ({ rows, usage }) => {
    const title = `Drawn counts ${++n}`;
    const got = await plantRead(title, rows.map((x, k) => ({ id: `src_${k}`, description: `source ${k}`, rows: x, query: null })), usage as Msg["usage"] | null);
    env.expect(r["message-whole"], !got.differs, `a message whose sources count ${JSON.stringify(rows)} rows${usage ? ` and whose usage is ${JSON.stringify(usage)}` : ""} reads differently than planted: ${got.differs}`, got.reply, { got: got.got });
  }, ctx.options.runs);
  env.reach("counts drawn from the domain", r["message-whole"].cites);
}

export const messages: Unit = {
  name: "messages",
  doc: "every role with usage recorded (served on assistant messages only), every feedback, every part type and tool state read back whole; row and token counts at every storage width and drawn from the contract's domain, read back exactly; every raw tool transport and transient state, and sources, at 32768 bytes (kept) and 32769 (truncated)",
  needs: ["plant-chat"],
  rules: [r["message-whole"], r["transport-truncated"], r["chat-updated"]],
  classes: (ctx) => [
    ...ROLES.map((role) => `role ${role}`),
    ...(ctx.states.has("chat-fields") ? [...FEEDBACK.map((f) => `feedback ${f}`), ...ROLES.map((role) => `usage on ${role}`), "completed after recorded", "finished after later ones were recorded, listed first", "chat updated by a message finished after it was recorded", "usage of zeros", "usage without a cost"] : []),
    "zeros and empties",
    "a file URL of escapes, + and a fragment",
    "JSON's edges in a tool's input and result",
    "markup, quotes, CRLF and padding in every text",
    "every part type and tool state",
    "sources empty",
    "counts at every storage width",
    "counts drawn from the domain",
    ...(ctx.states.has("recorded-parts") ? [...rawParts().classes, "sources at 32768 and 32769 bytes", "internal runtime parts"] : []),
  ],
  async run(env) {
    await rolesAndParts(env);
    await widths(env);
    if (env.ctx.states.has("recorded-parts")) await transports(env);
  },
};
