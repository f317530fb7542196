// The conformance suite's modules form no import cycle (type-only imports included): a cycle makes load order matter
// and hides which module owns what. It imports nothing from server/ either: it is an independent oracle.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { cycles, importGraph, importsOf } from "../support/import-graph.ts";

const ROOT = resolve(import.meta.dirname, "../../conformance");

describe("conformance module graph", () => {
  const graph = importGraph(ROOT);
  const all = [...graph.keys()];

  it("reads the suite's modules and their imports", () => {
    expect(all.length).toBeGreaterThan(20);
    expect(graph.get(join(ROOT, "src/run.ts"))).toContain(join(ROOT, "src/http.ts"));
  });

  it("has no import cycle", () => {
    const named = cycles(graph).map((c) => c.map((f) => relative(ROOT, f)).join(" -> "));
    expect(named).toEqual([]);
  });

  // The layers: judge/ (what checks and model share to judge) is low; the model and the judge import no check; no
  // import climbs back up.
  it("keeps its layers: judge/ imports no check and no model, model/ imports no check", () => {
    const climbs = all.flatMap((f) => {
      const from = relative(ROOT, f);
      const banned = from.startsWith("src/judge/") ? ["src/checks/", "src/model/"] : from.startsWith("src/model/") ? ["src/checks/"] : [];
      return (graph.get(f) ?? []).filter((i) => banned.some((b) => relative(ROOT, i).startsWith(b))).map((i) => `${from} imports ${relative(ROOT, i)}`);
    });
    expect(climbs).toEqual([]);
  });

  it("holds each model command in one file, listed once in the index", () => {
    const dir = join(ROOT, "src/model/commands");
    const commandFiles = readdirSync(dir).filter((f) => !["index.ts", "base.ts"].includes(f));
    const index = readFileSync(join(dir, "index.ts"), "utf8");
    for (const f of commandFiles) {
      const text = readFileSync(join(dir, f), "utf8");
      expect(text.match(/^export class \w+ extends Command/gm)?.length, f).toBe(1);
      expect(text.match(/^export const \w+: CommandSpec = \{/gm)?.length, f).toBe(1);
      expect(index, f).toContain(`from "./${f}"`);
    }
  });

  it("imports nothing from the reference server", () => {
    const leaks = all.flatMap((f) => importsOf(f).filter((i) => i.includes("/server/")).map((i) => `${relative(ROOT, f)} imports ${i}`));
    expect(leaks).toEqual([]);
  });
});
