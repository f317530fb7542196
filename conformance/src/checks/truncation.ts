/**
 * truncation: a tool_use.input, tool_result.content or sources[].query whose JSON encoding is longer than
 * 32768 UTF-8 bytes is null with `truncated: true` and `truncation_reason: "size_limit_32kb"`; nothing at or
 * under the limit is truncated or marked. Judged on the server's own data, and, with --sim, on planted values
 * of exact sizes: 32767, 32768 and 32769 bytes, multi-byte characters straddling the limit, escapes that
 * double a string's size, and strings short in characters but long in bytes.
 */
import type { Check, Ctx } from "../check.ts";
import { messagesOf, snapshot } from "../data.ts";
import type { Reply } from "../http.ts";
import { bytes, capped, LIMIT, messageVerdicts, truncationRules, verdicts, type Verdict } from "../judge/truncation.ts";

const r = truncationRules;

/** A JSON string value whose encoding is exactly `n` bytes: `unit` repeated, the rest ASCII (or the unit last, to straddle). */
export function stringOfBytes(n: number, unit = "a", unitLast = false): string {
  const unitBytes = bytes(unit) - 2;
  const content = n - 2;
  if (unitLast) return "a".repeat(content - unitBytes) + unit;
  const count = Math.floor(content / unitBytes);
  return unit.repeat(count) + "a".repeat(content - count * unitBytes);
}

interface Planted {
  label: string;
  /** Which payload: tool_use.input (object), tool_result.content (string) or sources[].query (string). */
  kind: "input" | "content" | "query";
  value: unknown;
}

/** The planted boundary values; every one's JSON size is asserted here, so the suite cannot plant the wrong size. */
export function boundaryValues(): Planted[] {
  const out: Planted[] = [];
  const object = (n: number, unit?: string, last?: boolean) => ({ q: stringOfBytes(n - 6, unit, last) }); // {"q":} is 6 bytes
  for (const n of [LIMIT - 1, LIMIT, LIMIT + 1]) {
    out.push({ label: `tool_use.input of ${n} bytes`, kind: "input", value: object(n) });
    out.push({ label: `tool_result.content of ${n} bytes`, kind: "content", value: stringOfBytes(n) });
    out.push({ label: `sources[].query of ${n} bytes`, kind: "query", value: stringOfBytes(n) });
  }
  for (const [unit, name] of [["é", "2-byte é"], ["日", "3-byte 日"], ["😀", "4-byte 😀"]] as const) {
    const w = bytes(unit) - 2;
    // The last character ends exactly at the limit, or crosses it by one byte.
    out.push({ label: `tool_result.content of ${LIMIT} bytes ending with a ${name}`, kind: "content", value: stringOfBytes(LIMIT, unit, true) });
    out.push({ label: `tool_result.content of ${LIMIT + 1} bytes ending with a ${name}`, kind: "content", value: stringOfBytes(LIMIT + 1, unit, true) });
    // Few characters, many bytes: under the limit in UTF-16 units, over it in UTF-8 bytes.
    const many = unit.repeat(Math.floor((LIMIT + 64) / w));
    out.push({ label: `sources[].query of ${many.length} UTF-16 units of ${name} (${bytes(many)} bytes)`, kind: "query", value: many });
    out.push({ label: `tool_use.input of ${name} characters, ${LIMIT} bytes`, kind: "input", value: object(LIMIT, unit) });
  }
  // Escapes double a string: 16384 quotes are 32770 bytes of JSON.
  out.push({ label: "sources[].query of 16384 escaped quotes (32770 bytes)", kind: "query", value: "\"".repeat(16_384) });
  out.push({ label: "tool_result.content object of 32768 bytes", kind: "content", value: { rows: [stringOfBytes(LIMIT - 11)] } }); // {"rows":[]} is 11 bytes
  for (const p of out) {
    const stated = Number(/(\d+) bytes/.exec(p.label)?.[1]);
    if (bytes(p.value) !== stated) throw new Error(`the suite planted ${bytes(p.value)} bytes for "${p.label}"`);
  }
  return out;
}

function messageFor(p: Planted): unknown {
  if (p.kind === "input") return { role: "assistant", parts: [{ type: "tool_use", id: "toolu_probe", name: "query_warehouse", summary: "Probe", input: p.value, state: "output_available" }] };
  if (p.kind === "content") return { role: "assistant", parts: [{ type: "tool_result", tool_use_id: "toolu_probe", content: p.value, is_error: true }] };
  return { role: "assistant", parts: [{ type: "text", text: "Cited" }], sources: [{ id: "src_probe", description: "Probe source", rows: 7, query: p.value }] };
}

/** What the server's own data holds near the cap: values within 256 bytes of it (or marked), kept at exactly 32768 bytes, nulled and marked. */
async function observed(ctx: Ctx): Promise<{ near: number; atLimit: number; truncated: number }> {
  const { chats } = await snapshot(ctx.http);
  let near = 0;
  let atLimit = 0;
  let truncated = 0;
  const count = (holder: any, value: unknown) => {
    if (holder.truncated === true && value === null) truncated++;
    else if (value != null && holder.truncated === undefined && bytes(value) === LIMIT) atLimit++;
  };
  for (const chat of chats) {
    const found: Verdict[] = [];
    for (const m of await messagesOf(ctx.http, chat.id)) {
      const where = `chat ${chat.id} message ${m.id}`;
      const isNear = (holder: any, value: unknown) => holder.truncated !== undefined || (value != null && bytes(value) > LIMIT - 256);
      found.push(...messageVerdicts(m, where));
      for (const { holder, field } of capped(m)) {
        if (isNear(holder, holder[field])) near++;
        count(holder, holder[field]);
      }
    }
    // The curl of a failure replays the chat's first page of messages.
    const reply: Reply | undefined = found.some(([, ok]) => !ok) ? await ctx.http.req(`/v1/chats/${chat.id}/messages?limit=100`) : undefined;
    for (const [rule, ok, message] of found) ctx.expect(rule, ok, message, reply);
  }
  return { near, atLimit, truncated };
}

async function planted(ctx: Ctx): Promise<void> {
  for (const p of boundaryValues()) {
    const made = await ctx.states.plantChat({ title: ctx.states.name(`Truncation probe: ${p.label}`), messages: [messageFor(p) as never] });
    const page = await ctx.http.req(`/v1/chats/${made.id}/messages`);
    if (!ctx.must(r.kept, page.status === 200 && page.body?.data?.length === 1, `the planted chat's messages answered ${page.status} with ${page.body?.data?.length} messages`, page)) return;
    const m = page.body.data[0];
    const holder = p.kind === "query" ? m.sources?.[0] : m.parts?.[0];
    for (const [rule, ok, message] of verdicts(holder ?? {}, p.kind, p.label, p.value)) ctx.expect(rule, ok, message, page);
    if (p.kind === "input") ctx.expect(r.siblings, holder?.id === "toolu_probe" && holder?.name === "query_warehouse" && holder?.summary === "Probe" && holder?.state === "output_available", `${p.label}: the tool_use's other fields changed: ${JSON.stringify({ ...holder, input: "…" })}`, page);
    if (p.kind === "content") ctx.expect(r.siblings, holder?.tool_use_id === "toolu_probe" && holder?.is_error === true, `${p.label}: the tool_result's tool_use_id or is_error changed: ${JSON.stringify({ ...holder, content: "…" })}`, page);
    if (p.kind === "query") {
      ctx.expect(r.siblings, holder?.id === "src_probe" && holder?.description === "Probe source", `${p.label}: the source's id or description changed`, page);
      ctx.expect(r["rows-kept"], holder?.rows === 7, `${p.label}: rows became ${holder?.rows}`, page);
    }
  }
}

/**
 * Messages with one to four sources mixing values at and over the limit: each source is judged on its own (a bug that
 * truncates only the first source, or nulls every source of a message once one is over, shows here).
 */
async function plantedSources(ctx: Ctx): Promise<void> {
  const kept = stringOfBytes(LIMIT);
  const over = stringOfBytes(LIMIT + 1);
  // One chat per layout: a request body holds at most three values near 32 KB.
  const layouts = [[over], [kept, over], [over, kept, over], ["SELECT 1", "SELECT 2", over, "SELECT 4"]];
  for (const [n, queries] of layouts.entries()) {
    const message = {
      role: "assistant", parts: [{ type: "text", text: `Cited ${n}` }],
      sources: queries.map((query, i) => ({ id: `src_${n}_${i}`, description: `Source ${i} of ${queries.length}`, rows: i + 1, query })),
    };
    const made = await ctx.states.plantChat({ title: ctx.states.name(`Truncation probe: ${queries.length} sources`), messages: [message as never] });
    const page = await ctx.http.req(`/v1/chats/${made.id}/messages`);
    if (!ctx.must(r.kept, page.status === 200 && page.body?.data?.length === 1, `the planted chat's messages answered ${page.status} with ${page.body?.data?.length} messages`, page)) return;
    const sources = page.body.data[0]?.sources ?? [];
    ctx.expect(r.siblings, sources.length === queries.length, `a message planted with ${queries.length} sources has ${sources.length}`, page);
    queries.forEach((query, i) => {
      const s = sources[i] ?? {};
      const label = `source ${i + 1} of ${queries.length} (${bytes(query)} bytes)`;
      for (const [rule, ok, message] of verdicts(s, "query", label, query)) ctx.expect(rule, ok, message, page);
      ctx.expect(r.siblings, s.id === `src_${n}_${i}` && s.description === `Source ${i} of ${queries.length}`, `${label}: its id or description changed, or the sources were reordered`, page);
      if (query === over) ctx.expect(r["rows-kept"], s.rows === i + 1, `${label}: rows became ${s.rows}`, page);
    });
  }
}

export const truncationCheck: Check = {
  name: "truncation",
  description: "values over 32768 bytes of JSON are null and marked; none at or under it are (exact boundaries with --sim)",
  rules: r,
  operations: ["listChatMessages"],
  async run(ctx) {
    const { near, atLimit, truncated } = await observed(ctx);
    ctx.note(`truncation: ${near} values in the server's data are truncated or within 256 bytes of the limit (${atLimit} kept at exactly 32768 bytes, ${truncated} nulled and marked)`);
    if (ctx.states.has("plant-chat")) {
      await ctx.part("planted exact boundaries (32767/32768/32769 bytes, multi-byte)", () => planted(ctx));
      await ctx.part("several sources per message at the boundary", () => plantedSources(ctx));
      return;
    }
    const lacking = ctx.states.caps.lacking("plant-chat")!;
    // The data has the boundary on both sides: a value kept at exactly the cap, and one nulled over it.
    if (atLimit > 0 && truncated > 0) return ctx.note(`truncation: the boundary was judged on the server's own data (no message can be planted: ${lacking.why})`);
    if (near === 0) ctx.untested("values at the 32768-byte boundary (needs capability plant-chat)", `the server's data has nothing near 32 KB, and no message can be planted: ${lacking.why}`);
    else ctx.untested("planted exact boundaries (32767/32768/32769 bytes, multi-byte) (needs capability plant-chat)", `only the server's own data was judged: ${lacking.why}`);
  },
};
