/**
 * truncation: a tool_use.input, tool_result.content or sources[].query whose JSON encoding is longer than
 * 32768 UTF-8 bytes is null with `truncated: true` and `truncation_reason: "size_limit_32kb"`; nothing at or
 * under the limit is truncated or marked. Needs data near the boundary: without any, the check is skipped.
 */
import { Skip, type Check } from "../check.ts";
import { messagesOf, snapshot } from "../data.ts";
import { expectThat } from "../http.ts";

const LIMIT = 32_768;
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), "utf8");

export const truncationCheck: Check = {
  name: "truncation",
  description: "values over 32768 bytes of JSON are null and marked; none at or under it are",
  async run(ctx) {
    const { chats } = await snapshot(ctx.http);
    let truncated = 0;
    let nearLimit = 0;
    for (const chat of chats) {
      let problem: string | null = null;
      const expect = (ok: boolean, message: string) => {
        if (!ok && problem === null) problem = message;
      };
      for (const m of await messagesOf(ctx.http, chat.id)) {
        const where = `chat ${chat.id} message ${m.id}`;
        const judge = (holder: any, field: string, what: string) => {
          const value = holder[field];
          if (holder.truncated !== undefined || holder.truncation_reason !== undefined) {
            expect(holder.truncated === true && holder.truncation_reason === "size_limit_32kb", `${where}: ${what} has truncation markers ${JSON.stringify({ truncated: holder.truncated, truncation_reason: holder.truncation_reason })}`);
            expect(value === null, `${where}: ${what} is marked truncated but its ${field} is not null`);
            truncated++;
          } else if (value !== null && value !== undefined) {
            const size = bytes(value);
            expect(size <= LIMIT, `${where}: ${what} is ${size} bytes of JSON (over 32768) and not truncated`);
            if (size > LIMIT - 256) nearLimit++;
          } else if (field === "input") {
            expect(false, `${where}: ${what} is null without truncation markers`);
          }
        };
        m.parts.forEach((p: any, i: number) => {
          if (p.type === "tool_use") judge(p, "input", `parts[${i}] tool_use.input`);
          if (p.type === "tool_result") judge(p, "content", `parts[${i}] tool_result.content`);
        });
        (m.sources ?? []).forEach((s: any, i: number) => judge(s, "query", `sources[${i}].query`));
      }
      if (problem !== null) expectThat(false, problem, await ctx.http.req(`/v1/chats/${chat.id}/messages?limit=100`));
    }
    ctx.note(`truncation: ${truncated} truncated values, ${nearLimit} kept values within 256 bytes of the limit`);
    if (truncated === 0 && nearLimit === 0) throw new Skip("no value near or over 32768 bytes in the server's data (messages cannot be created through the API, so --sim cannot help)");
  },
};
