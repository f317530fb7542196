// The reference server's modules form no import cycle (type-only imports included): a cycle makes load order matter
// and hides which module owns what. Interfaces that several sides implement or use live in ports (stores/<job>.ts).
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { cycles, importGraph } from "../../test/support/import-graph.ts";

const ROOT = resolve(import.meta.dirname, "../src");

describe("the reference server's module graph", () => {
  const graph = importGraph(ROOT);
  const all = [...graph.keys()];

  it("reads the server's modules and their imports", () => {
    expect(all.length).toBeGreaterThan(50);
    expect(graph.get(join(ROOT, "main.ts"))).toContain(join(ROOT, "app.ts"));
  });

  it("has no import cycle", () => {
    expect(cycles(graph).map((c) => c.map((f) => relative(ROOT, f)).join(" -> "))).toEqual([]);
  });

  it("keeps model/ free of any store's implementation", () => {
    const reaching = all.filter((f) => relative(ROOT, f).startsWith("model/")).flatMap((f) => (graph.get(f) ?? []).filter((i) => /\/stores\/(postgres|sqlite|memory)\//.test(i)).map((i) => `${relative(ROOT, f)} -> ${relative(ROOT, i)}`));
    expect(reaching).toEqual([]);
  });
});
