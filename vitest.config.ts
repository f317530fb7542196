// `npm test`'s layer: the type check runs before it; these are the unit tests and the tests that talk HTTP to one
// in-process app. Every named layer (test/layers.ts) has its own config and script; `npm run test:all` runs them all.
import { NAMED } from "./test/layers.ts";
import { layerConfig } from "./vitest.layer.ts";

// Files share their worker's modules (isolate: false): each file imported the app, the suite and their validators
// afresh, 48 s of the layer's 180 s; shared, the layer takes two thirds of the time and of the CPU. No file stubs
// globals, mocks modules or sets the environment (checked with the files in a shuffled order).
export default layerConfig({ include: ["**/test/**/*.test.ts", "**/test/**/*.test.tsx"], exclude: [...NAMED, "server/test/cluster/**"], isolate: false });
