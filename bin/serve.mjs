#!/usr/bin/env node
// `serve`: the reference server (what `npm start` runs in the repository). The TypeScript runs through tsx.
import { register } from "tsx/esm/api";

register();
await import("../server/src/main.ts");
