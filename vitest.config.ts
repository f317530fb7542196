// `npm test`'s layer: the type check runs before it; these are the unit tests and the tests that talk HTTP to one
// in-process app. Every named layer (test/layers.ts) has its own config and script; `npm run test:all` runs them all.
import { NAMED } from "./test/layers.ts";
import { layerConfig } from "./vitest.layer.ts";

export default layerConfig({ include: ["**/test/**/*.test.ts", "**/test/**/*.test.tsx"], exclude: [...NAMED, "server/test/cluster/**"] });
