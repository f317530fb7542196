#!/usr/bin/env node
// `conformance --base-url URL --api-key KEY ...`: the conformance suite (what `npm run conformance` runs).
import { register } from "tsx/esm/api";

register();
await import("../conformance/cli.ts");
