// The judge worker run from source (vitest, `npm run conformance`): tsx's loader registered in the worker itself,
// since a worker does not inherit --import from its process. The published bundle runs dist/proxy-worker.js instead.
import { register } from "tsx/esm/api";

register();
await import("./worker.ts");
