/**
 * The score of a mutation run (run.ts), from StrykerJS's JSON report and runner.ts's outcomes: also
 * `npx tsx test/mutation/score.ts DIR` on a run kept with `--out DIR`, to score it again as survivors are triaged.
 *
 * Killed: the suite failed a named rule (or the mutant timed out). NOT TESTED mutants (the suite named no rule, but left
 * parts untested) are counted apart, never as kills. Every survivor, whether no check reached its code (NoCoverage)
 * or the checks that did passed it, takes its verdict from verdicts.json: "missed" (a seed violation the suite did not
 * catch), "equivalent" (no change anyone can observe through the API) or "outside the seed" (a change to what the seed
 * leaves open). The seed score leaves out the equivalent and outside-the-seed survivors: of the mutants that change
 * what the seed says, the share the suite killed. The share of the non-equivalent leaves out only the equivalent ones.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FOREIGN_SERVER } from "../support/foreign.ts";

export interface Verdict {
  verdict: "missed" | "equivalent" | "outside the seed";
  reason: string;
}

const VERDICTS = fileURLToPath(new URL("./verdicts.json", import.meta.url));
export const OPEN_LINES = fileURLToPath(new URL("./open-lines.json", import.meta.url));

export interface OpenRange {
  lines: string;
  starts: string;
  what: string;
  seed: string;
}

/**
 * The lines of server.mjs that the seed does not judge (open-lines.json). A range whose first line no longer starts as
 * recorded is refused: the file changed, and the ranges must be read again.
 */
export function openLines(source: string[]): Set<number> {
  const ranges: OpenRange[] = JSON.parse(readFileSync(OPEN_LINES, "utf8")).ranges;
  const lines = new Set<number>();
  for (const r of ranges) {
    const [a, b = a] = r.lines.split("-").map(Number);
    if (!source[a - 1]?.startsWith(r.starts)) throw new Error(`test/mutation/open-lines.json: line ${a} of ${FOREIGN_SERVER} no longer starts with ${JSON.stringify(r.starts)}; read the ranges again`);
    for (let l = a; l <= b; l++) lines.add(l);
  }
  return lines;
}
export interface OpenTexts {
  what: string;
  seed: string;
  /** [line, text]: the text is found exactly once on that line of server.mjs. */
  at: [number, string][];
}

/**
 * The spans of server.mjs, within lines the seed judges, that only carry what it leaves open (open-lines.json's
 * `texts`): line -> [start, end) columns (0-based, as Babel counts them). A text no longer found exactly once on its
 * line is refused, as a range that moved is.
 */
export function openTexts(source: string[]): Map<number, [number, number][]> {
  const groups: OpenTexts[] = JSON.parse(readFileSync(OPEN_LINES, "utf8")).texts ?? [];
  const spans = new Map<number, [number, number][]>();
  for (const g of groups)
    for (const [line, text] of g.at) {
      const at = source[line - 1]?.indexOf(text) ?? -1;
      if (at < 0 || source[line - 1].indexOf(text, at + 1) >= 0) throw new Error(`test/mutation/open-lines.json: ${JSON.stringify(text)} is no longer found exactly once on line ${line} of ${FOREIGN_SERVER}; read the texts again`);
      spans.set(line, [...(spans.get(line) ?? []), [at, at + text.length] as [number, number]].sort((a, b) => a[0] - b[0]));
    }
  return spans;
}

/**
 * Whether a mutant of Stryker's report (1-based columns) lies on seed-judged code: not on an open line, nor inside an
 * open text (ignorer.ts makes none there; one that spans a text and more is made, and judged).
 */
export function onSeedJudgedCode(m: any, lines: Set<number>, texts: Map<number, [number, number][]>): boolean {
  const { start, end } = m.location;
  if (lines.has(start.line)) return false;
  if (end.line !== start.line) return true;
  const [a, b] = [start.column - 1, end.column - 1];
  return !(texts.get(start.line) ?? []).some(([s, e]) => a >= s && b <= e);
}

export const keyOf = (m: any) => `${m.location.start.line}:${m.location.start.column} ${m.mutatorName} ${JSON.stringify(m.replacement)}`;
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : "n/a");

export function score(reportJson: string, outcomesJsonl: string, what = ""): string {
  const source = readFileSync(FOREIGN_SERVER, "utf8").split("\n");
  const verdicts: Record<string, Verdict> = JSON.parse(readFileSync(VERDICTS, "utf8"));
  const mutants: any[] = Object.values<any>(JSON.parse(reportJson).files).flatMap((f: any) => f.mutants);
  const notTested = new Set(outcomesJsonl.split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((o) => o.kind === "not-tested").map((o) => String(o.mutant)));
  const killed = mutants.filter((m) => ["Killed", "Timeout"].includes(m.status));
  const untested = mutants.filter((m) => m.status === "Survived" && notTested.has(String(m.id)));
  const survived = mutants.filter((m) => (m.status === "Survived" && !notTested.has(String(m.id))) || m.status === "NoCoverage");
  const by = (v: string) => survived.filter((m) => verdicts[keyOf(m)]?.verdict === v);
  const [equivalent, outside, missed] = [by("equivalent"), by("outside the seed"), by("missed")];
  const untriaged = survived.filter((m) => !verdicts[keyOf(m)]);
  const scored = killed.length + survived.length;
  const seedScored = scored - equivalent.length - outside.length;
  const line = (m: any) => `${keyOf(m)}  line ${m.location.start.line}: ${source[m.location.start.line - 1].trim().slice(0, 100)}`;
  const out = [
    `\nmutation score: ${pct(killed.length, scored)} (${killed.length} killed of ${scored} ${what}; ${untested.length} left NOT TESTED by the suite, counted apart; ${mutants.length - scored - untested.length} not scored: compile errors or ignored)`,
    `seed score: ${pct(killed.length, seedScored)} (${killed.length} killed of the ${seedScored} that change what the seed says; survivors: ${equivalent.length} equivalent, ${outside.length} outside the seed, ${missed.length} missed, ${untriaged.length} untriaged; ${survived.filter((m) => m.status === "NoCoverage").length} of them reached by no check)`,
    `of the non-equivalent: ${pct(killed.length, scored - equivalent.length)} (${killed.length} killed of ${scored - equivalent.length}, the outside-the-seed survivors counted against the suite)`,
    ...(() => {
      // A run made with --include-open (or before open-lines.json): the same share on the seed-judged code alone.
      const [open, texts] = [openLines(source), openTexts(source)];
      const onOpen = (m: any) => !onSeedJudgedCode(m, open, texts);
      if (![...killed, ...survived].some(onOpen)) return [];
      const k = killed.filter((m) => !onOpen(m)).length;
      const n = survived.filter((m) => !onOpen(m) && verdicts[keyOf(m)]?.verdict !== "equivalent").length + k;
      return [`of the non-equivalent on the seed-judged code (without test/mutation/open-lines.json's lines and texts): ${pct(k, n)} (${k} killed of ${n})`];
    })(),
    ...untested.map((m) => `not tested ${line(m)}`),
    ...survived.map((m) => `survived${m.status === "NoCoverage" ? " (no check reached it)" : ""} ${line(m)}\n  ${verdicts[keyOf(m)] ? `${verdicts[keyOf(m)].verdict}: ${verdicts[keyOf(m)].reason}` : "untriaged"}`),
  ];
  if (untriaged.length) out.push(`\n${untriaged.length} survivors untriaged: add each to test/mutation/verdicts.json with its verdict and reason`);
  return out.join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: npx tsx test/mutation/score.ts DIR (a run kept with npm run test:mutation -- --out DIR)");
    process.exit(2);
  }
  console.log(score(readFileSync(join(dir, "mutation.json"), "utf8"), readFileSync(join(dir, "outcomes.jsonl"), "utf8"), `in ${dir}`));
}
