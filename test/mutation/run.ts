/**
 * `npm run test:mutation [-- --sample N --seed S]`: a mirror for what we cannot imagine. StrykerJS mutates a copy of
 * ../shared/foreign/server.mjs (an implementation written from the seed alone) and runs the conformance suite through
 * conformance/examples/foreign-states.ts against each mutant (test/mutation/kill.ts); a mutant the suite passes
 * survived. With `--sample N`, only the mutants on N lines of code drawn with `--seed` are run (the whole server has
 * thousands; each costs a full run of the suite). It prints the score and the survivors, each with its verdict from
 * test/mutation/verdicts.json (a seed violation the suite missed, no change to behaviour, or outside the seed) or
 * "untriaged". Not part of CI: minutes per mutant on this machine.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { FOREIGN_SERVER } from "../support/foreign.ts";
import { root } from "../support/processes.ts";

const { values } = parseArgs({ options: { sample: { type: "string", default: "20" }, seed: { type: "string", default: "1" }, lines: { type: "string" }, "include-testing": { type: "boolean", default: false }, concurrency: { type: "string", default: "4" } } });
const sample = Number(values.sample);
const seed = Number(values.seed);
if (!Number.isInteger(sample) || sample < 1 || !Number.isInteger(seed) || !(Number(values.concurrency) >= 1)) {
  console.error("usage: npm run test:mutation -- [--sample N (lines of code, default 20)] [--seed S (default 1)] [--lines 10-12,40] [--include-testing] [--concurrency N (mutants at once, default 4)]");
  process.exit(2);
}

/**
 * Lines of code worth mutating: not blank, not a comment, not an import; and, unless --include-testing, not in the
 * server's test-support API or its fixtures (its own conventions, outside the seed: a mutant there is at best a
 * planting the states module notices, never a violation the suite should find).
 */
const source = readFileSync(FOREIGN_SERVER, "utf8").split("\n");
let section = "";
const code = source
  .map((text, i) => {
    const heading = /^\/\/ -{20,} (.+)$/.exec(text);
    if (heading) section = heading[1];
    return { line: i + 1, text: text.trim(), section };
  })
  .filter(({ text, section: s }) => text && !text.startsWith("//") && !text.startsWith("import ") && !/^[{}()[\];,]+$/.test(text) && (values["include-testing"] || !/^(test-support|fixtures)/.test(s)));
const chosen = values.lines
  ? values.lines.split(",").flatMap((r) => {
      const [a, b] = r.split("-").map(Number);
      return Array.from({ length: (b ?? a) - a + 1 }, (_, k) => a + k);
    })
  : fc.sample(fc.shuffledSubarray(code.map((c) => c.line), { minLength: Math.min(sample, code.length), maxLength: Math.min(sample, code.length) }), { seed, numRuns: 1 })[0].sort((a, b) => a - b);

const dir = mkdtempSync(join(tmpdir(), "mutation-foreign-"));
try {
  copyFileSync(FOREIGN_SERVER, join(dir, "server.mjs"));
  const report = join(dir, "mutation.json");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "foreign-mutants", private: true, type: "module" }));
  writeFileSync(join(dir, "stryker.config.json"), JSON.stringify({
    testRunner: "command",
    commandRunner: { command: `"${process.execPath}" --import "${join(root, "node_modules/tsx/dist/loader.mjs")}" "${join(root, "test/mutation/kill.ts")}"` },
    mutate: chosen.map((l) => `server.mjs:${l}-${l}`),
    coverageAnalysis: "off",
    // Each mutant runs a server and the suite of its own (free ports, its own folders): several at once.
    concurrency: Number(values.concurrency),
    timeoutMS: 120_000,
    reporters: ["json", "clear-text"],
    jsonReporter: { fileName: report },
    cleanTempDir: "always",
    tempDirName: ".stryker-tmp",
  }, null, 2));
  console.error(`mutating ${chosen.length} lines of ${FOREIGN_SERVER} (seed ${seed}): ${chosen.join(", ")}`);
  const log = join(dir, "outcomes.jsonl");
  writeFileSync(log, "");
  execFileSync(process.execPath, [join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run"], { cwd: dir, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, MUTATION_LOG: log } });
  const result = JSON.parse(readFileSync(report, "utf8"));
  const mutants: any[] = Object.values<any>(result.files).flatMap((f: any) => f.mutants);
  // A mutant the suite left NOT TESTED (exit 3) is no kill and no survivor: counted apart.
  const notTested = new Set(readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((o) => o.kind === "not-tested").map((o) => String(o.mutant)));
  const killed = mutants.filter((m) => ["Killed", "Timeout"].includes(m.status));
  const untestedMutants = mutants.filter((m) => m.status === "Survived" && notTested.has(String(m.id)));
  const survived = mutants.filter((m) => (m.status === "Survived" && !notTested.has(String(m.id))) || m.status === "NoCoverage");
  const verdicts: Record<string, { verdict: string; reason: string }> = JSON.parse(readFileSync(join(root, "test/mutation/verdicts.json"), "utf8"));
  const keyOf = (m: any) => `${m.location.start.line}:${m.location.start.column} ${m.mutatorName} ${JSON.stringify(m.replacement)}`;
  const scored = killed.length + survived.length;
  console.log(`\nmutation score: ${scored ? ((100 * killed.length) / scored).toFixed(1) : "n/a"}% (${killed.length} killed of ${scored}; ${untestedMutants.length} left NOT TESTED by the suite, counted apart; ${mutants.length - scored - untestedMutants.length} not scored: compile errors or ignored) on ${chosen.length} lines, seed ${seed}`);
  for (const m of untestedMutants) console.log(`not tested ${keyOf(m)}  line ${m.location.start.line}: ${source[m.location.start.line - 1].trim().slice(0, 100)}`);
  for (const m of survived) {
    const v = verdicts[keyOf(m)];
    console.log(`survived ${keyOf(m)}  line ${m.location.start.line}: ${source[m.location.start.line - 1].trim().slice(0, 100)}\n  ${v ? `${v.verdict}: ${v.reason}` : "untriaged"}`);
  }
  const untriaged = survived.filter((m) => !verdicts[keyOf(m)]).length;
  if (untriaged) console.log(`\n${untriaged} survivors untriaged: add each to test/mutation/verdicts.json with its verdict and reason`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
