/**
 * `npm run mock`: Prism 5.14.2 on generated/openapi.json, serving the contract's examples (stateless).
 * `npm run mock:dynamic`: generated data instead, seeded, with no invented extra properties.
 * MOCK_PORT (default 4011), MOCK_HOST (default 127.0.0.1), MOCK_SEED (dynamic mode, default 1).
 * Prism serves the paths at its root: the base URL is http://127.0.0.1:4011, with no /api.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const dynamic = process.argv.includes("--dynamic");
const port = process.env.MOCK_PORT ?? "4011";
const host = process.env.MOCK_HOST ?? "127.0.0.1";
if (!/^\d+$/.test(port)) {
  console.error(`MOCK_PORT must be a port number, got "${port}"`);
  process.exit(2);
}
const args = ["node_modules/@stoplight/prism-cli/dist/index.js", "mock", "-p", port, "-h", host, "generated/openapi.json"];
if (dynamic) args.push("--dynamic", "--seed", process.env.MOCK_SEED ?? "1", "--json-schema-faker-fillProperties=false");
if (process.env.MOCK_QUIET === "1") args.push("-v", "silent");

const prism = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
console.error(`Prism mock (${dynamic ? "dynamic" : "examples"}) on http://${host}:${port} (paths at the root: /v1/...)`);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => prism.kill(signal));
prism.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
