/**
 * Starts a StrykerJS-instrumented copy of the foreign server (the path in argv[2]) and answers its mutant coverage over
 * the IPC channel (`npm run test:mutation`, runner.ts): "begin" marks the end of start-up (what ran before it is
 * static coverage, which every check reaches), "coverage" sends what the instrumented code has counted.
 */
import { pathToFileURL } from "node:url";

process.on("message", (message) => {
  const ns = globalThis.__stryker__ ?? (globalThis.__stryker__ = {});
  if (message === "begin") ns.currentTestId = "run";
  if (message === "coverage") process.send?.({ coverage: ns.mutantCoverage ?? { static: {}, perTest: {} } });
});
// The channel must not keep the server alive once it is stopped.
process.channel?.unref();
await import(pathToFileURL(process.argv[2]).href);
