#!/usr/bin/env node
// `mock [--dynamic]`: the Prism mock under /api (what `npm run mock` runs in the repository).
import { register } from "tsx/esm/api";

register();
await import("../mock/run.ts");
