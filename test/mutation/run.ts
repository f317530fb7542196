/**
 * `npm run test:mutation [-- --sample N --seed S]`: a mirror for what we cannot imagine. StrykerJS mutates a copy of
 * ../shared/foreign/server.mjs (an implementation written from the seed alone) on every seed-judged line, and runs the
 * conformance suite's checks that reach each mutant through conformance/examples/foreign-states.ts
 * (test/mutation/runner.ts); a mutant the suite passes survived. With `--sample N`, only the mutants on N lines drawn
 * with `--seed` are run. It prints the score and the survivors, each with its verdict from
 * test/mutation/verdicts.json (a seed violation the suite missed, no change to behaviour, or outside the seed) or
 * "untriaged". Not part of CI: the whole server took 52 min here (2 cores, eight mutants at once).
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { FOREIGN_SERVER } from "../support/foreign.ts";
import { root } from "../support/processes.ts";
import { openLines, score } from "./score.ts";

const { values } = parseArgs({ options: { sample: { type: "string" }, seed: { type: "string", default: "1" }, lines: { type: "string" }, "include-testing": { type: "boolean", default: false }, "include-open": { type: "boolean", default: false }, concurrency: { type: "string", default: String(4 * availableParallelism()) }, out: { type: "string" } } });
const sample = values.sample === undefined ? Infinity : Number(values.sample);
const seed = Number(values.seed);
if (!(sample === Infinity || Number.isInteger(sample)) || sample < 1 || !Number.isInteger(seed) || !(Number(values.concurrency) >= 1)) {
  console.error("usage: npm run test:mutation -- [--sample N (lines of code drawn, default every seed-judged line)] [--seed S (default 1)] [--lines 10-12,40] [--include-testing] [--include-open] [--concurrency N (mutants at once, default four per core: a mutant's checks mostly wait)] [--out DIR (keeps the Stryker report and each mutant's outcome there)]");
  process.exit(2);
}

/**
 * Lines of code worth mutating: not blank, not a comment, not an import; unless --include-testing, not in the
 * server's test-support API or its fixtures (its own conventions, outside the seed: a mutant there is at best a
 * planting the states module notices, never a violation the suite should find); and unless --include-open, none of the
 * lines the seed does not judge (test/mutation/open-lines.json: each range with the seed's words that leave it open).
 */
const source = readFileSync(FOREIGN_SERVER, "utf8").split("\n");
const open = values["include-open"] ? new Set<number>() : openLines(source);
let section = "";
const code = source
  .map((text, i) => {
    const heading = /^\/\/ -{20,} (.+)$/.exec(text);
    if (heading) section = heading[1];
    return { line: i + 1, text: text.trim(), section };
  })
  .filter(({ line, text, section: s }) => text && !text.startsWith("//") && !text.startsWith("import ") && !/^[{}()[\];,]+$/.test(text) && (values["include-testing"] || !/^(test-support|fixtures)/.test(s)) && !open.has(line));
const chosen = values.lines
  ? values.lines.split(",").flatMap((r) => {
      const [a, b] = r.split("-").map(Number);
      return Array.from({ length: (b ?? a) - a + 1 }, (_, k) => a + k);
    })
  : sample >= code.length
    ? code.map((c) => c.line)
    : fc.sample(fc.shuffledSubarray(code.map((c) => c.line), { minLength: Math.min(sample, code.length), maxLength: Math.min(sample, code.length) }), { seed, numRuns: 1 })[0].sort((a, b) => a - b);

const loader = join(root, "node_modules/tsx/dist/loader.mjs");
const dir = mkdtempSync(join(tmpdir(), "mutation-foreign-"));
try {
  copyFileSync(FOREIGN_SERVER, join(dir, "server.mjs"));
  const report = join(dir, "mutation.json");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "foreign-mutants", private: true, type: "module" }));
  writeFileSync(join(dir, "stryker.config.json"), JSON.stringify({
    testRunner: "conformance",
    plugins: [join(root, "test/mutation/runner.ts"), join(root, "test/mutation/ignorer.ts")],
    testRunnerNodeArgs: ["--import", loader],
    mutate: chosen.map((l) => `server.mjs:${l}-${l}`),
    // Within the lines left, no mutant inside a text that only carries what the seed leaves open (an error's words).
    ignorers: values["include-open"] ? [] : ["open-texts"],
    // Each check's coverage: a mutant runs only against the checks that reached its code.
    coverageAnalysis: "perTest",
    // Each mutant runs servers and the suite of its own (free ports, its own folders): several at once. Four per core:
    // two at once kept 0.4 of one core busy (the checks wait on retry windows and completions), and a kill that rests
    // on timing alone must fail twice (runner.ts).
    concurrency: Number(values.concurrency),
    timeoutMS: 60_000,
    timeoutFactor: 2,
    reporters: ["json", "clear-text", "progress-append-only"],
    jsonReporter: { fileName: report },
    cleanTempDir: "always",
    tempDirName: ".stryker-tmp",
  }, null, 2));
  console.error(`mutating ${chosen.length} lines of ${FOREIGN_SERVER} (seed ${seed}): ${chosen.join(", ")}`);
  const log = join(dir, "outcomes.jsonl");
  writeFileSync(log, "");
  execFileSync(process.execPath, ["--import", loader, join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run"], { cwd: dir, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, MUTATION_LOG: log } });
  if (values.out) {
    mkdirSync(values.out, { recursive: true });
    copyFileSync(report, join(values.out, "mutation.json"));
    copyFileSync(log, join(values.out, "outcomes.jsonl"));
  }
  console.log(score(readFileSync(report, "utf8"), readFileSync(log, "utf8"), `on ${chosen.length} lines, seed ${seed}`));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
