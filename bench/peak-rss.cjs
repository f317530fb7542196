// Preloaded into a benchmarked command (`node --require bench/peak-rss.cjs ...`): prints the process's peak resident
// memory, DuckDB's native memory included, as the last line of stderr when it exits.
process.on("exit", () => require("node:fs").writeSync(2, `\npeak_rss_kb=${process.resourceUsage().maxRSS}\n`));
