/**
 * A StrykerJS ignorer: no mutant is made inside a text of test/mutation/open-lines.json (an error's words, a field
 * name the seed does not show). A mutant of code around it (the `if` that sends the error, a block that holds it) is
 * still made: it changes what the seed judges.
 */
import { readFileSync } from "node:fs";
import { FOREIGN_SERVER } from "../support/foreign.ts";
import { openTexts } from "./score.ts";

// StrykerJS's API taken untyped, as runner.ts takes it (its declarations do not type-check with skipLibCheck off).
const api = "@stryker-mutator/api";
const { declareValuePlugin, PluginKind } = await import(`${api}/plugin`);

const texts = openTexts(readFileSync(FOREIGN_SERVER, "utf8").split("\n"));

// The shape of StrykerJS's Ignorer, over the part of Babel's NodePath it reads.
interface Located {
  node: { loc?: { start: { line: number; column: number }; end: { line: number; column: number } } | null };
}

const ignorer = {
  shouldIgnore(path: Located): string | undefined {
    const loc = path.node.loc;
    if (!loc || loc.start.line !== loc.end.line) return undefined;
    // Babel counts columns from 0, as openTexts does.
    const inside = texts.get(loc.start.line)?.some(([a, b]) => loc.start.column >= a && loc.end.column <= b);
    return inside ? "open text: the seed leaves it to the implementation (test/mutation/open-lines.json)" : undefined;
  },
};

export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, "open-texts", ignorer)];
