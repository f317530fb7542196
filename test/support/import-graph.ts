/** A folder's TypeScript modules and their relative imports (type-only ones too), and the cycles among them. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Every .ts file below `dir` (node_modules and dist left out). */
export function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name === "dist") return [];
    return statSync(path).isDirectory() ? tsFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Relative imports of a module (static `import`/`export ... from`, type-only ones too), resolved to files. */
export function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\.{1,2}\/[^"']+)["']/gms)].map((m) => resolve(dirname(file), m[1]));
}

/** The module graph of `root`'s files, each with its imports inside `root`. */
export function importGraph(root: string): Map<string, string[]> {
  return new Map(tsFiles(root).map((f) => [f, importsOf(f).filter((i) => i.startsWith(root))]));
}

/** Every cycle a depth-first walk meets, each as the path that closes it. */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}
