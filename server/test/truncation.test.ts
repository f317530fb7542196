// The 32 KB rule: a value whose JSON encoding is longer than 32768 UTF-8 bytes is nulled and marked;
// exactly 32768 is kept. The fixture chat "Payload size boundaries" sits on both sides of the line.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acme, expected } from "./oracle.ts";
import { startApi, type Api } from "./helpers.ts";

let api: Api;
beforeAll(async () => void (api = await startApi()));
afterAll(() => api.server.close());

const want = expected(acme.id);
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), "utf8");
const boundary = want.chats.find((c) => c.title === "Payload size boundaries")!;

describe("truncation at 32 KB", () => {
  it("every raw payload maps to kept-or-nulled by its exact byte length", async () => {
    const { items } = await api.walk(`/v1/chats/${boundary.id}/messages`, 100);
    const raw = want.messagesOf(boundary.id);
    const seen = { kept: 0, nulled: 0, exact: 0, multibyteNulledAtEdge: 0 };
    items.forEach((m, n) => {
      const rawParts = raw[n].parts.filter((p) => !["compaction", "container_upload", "hidden_branch"].includes(p.type));
      m.parts.forEach((p: any, k: number) => {
        const r: any = rawParts[k];
        const value = p.type === "tool_use" ? r.input : p.type === "tool_result" ? r.content : undefined;
        if (value === undefined) return;
        const size = bytes(value);
        const field = p.type === "tool_use" ? "input" : "content";
        if (size > 32768) {
          seen.nulled++;
          expect(p[field]).toBeNull();
          expect(p.truncated).toBe(true);
          expect(p.truncation_reason).toBe("size_limit_32kb");
          if (size === 32769 && /[^\x00-\x7f]/.test(JSON.stringify(value))) seen.multibyteNulledAtEdge++;
          if (p.type === "tool_result") expect(p.is_error).toBe(r.is_error);
        } else {
          seen.kept++;
          if (size === 32768) seen.exact++;
          expect(p[field]).toEqual(value);
          expect(p).not.toHaveProperty("truncated");
          expect(p).not.toHaveProperty("truncation_reason");
        }
      });
      (m.sources ?? []).forEach((s: any, k: number) => {
        const q = raw[n].sources![k].query;
        if (q !== null && bytes(q) > 32768) {
          seen.nulled++;
          expect(s).toMatchObject({ query: null, truncated: true, truncation_reason: "size_limit_32kb" });
        } else {
          if (q !== null && bytes(q) === 32768) seen.exact++;
          expect(s.query).toBe(q);
          expect(s).not.toHaveProperty("truncated");
        }
      });
    });
    expect(seen.exact).toBeGreaterThanOrEqual(3);
    expect(seen.nulled).toBeGreaterThanOrEqual(4);
    expect(seen.multibyteNulledAtEdge).toBeGreaterThanOrEqual(1);
  });

  it("no value anywhere in the API is over the cap", async () => {
    for (const c of want.chats) {
      const { items } = await api.walk(`/v1/chats/${c.id}/messages`, 100);
      for (const m of items) {
        for (const p of m.parts) {
          if (p.type === "tool_use" && p.input !== null) expect(bytes(p.input)).toBeLessThanOrEqual(32768);
          if (p.type === "tool_result" && p.content !== null) expect(bytes(p.content)).toBeLessThanOrEqual(32768);
        }
        for (const s of m.sources ?? []) if (s.query !== null) expect(bytes(s.query)).toBeLessThanOrEqual(32768);
      }
    }
  });
});
