// No function of the reference server is over 150 lines (#61): one that long does several jobs, and a reader cannot
// hold it in one pass. Read with TypeScript's own parser, so every kind of function counts (declarations, methods,
// arrows, function expressions), nested ones on their own lines too.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../src");
const MAX_LINES = 150;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : []));
}

/** Every function with a body in `file`: where it starts, its name (or how it is held), and its lines. */
function functionsOf(file: string): Array<{ at: string; lines: number }> {
  const src = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out: Array<{ at: string; lines: number }> = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = src.getLineAndCharacterOfPosition(node.getStart(src)).line;
      const end = src.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name ? node.name.getText(src) : ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(src) : "(anonymous)";
      out.push({ at: `${relative(ROOT, file)}:${start + 1} ${name}`, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

describe("the reference server's functions", () => {
  const all = sources(ROOT).flatMap(functionsOf);

  it("are read: every kind, in every file", () => {
    expect(all.length).toBeGreaterThan(500);
    expect(all.some((f) => f.at.startsWith("app.ts:") && f.at.endsWith(" createApp"))).toBe(true);
  });

  it(`are at most ${MAX_LINES} lines each`, () => {
    expect(all.filter((f) => f.lines > MAX_LINES).map((f) => `${f.at}: ${f.lines} lines`)).toEqual([]);
  });
});
