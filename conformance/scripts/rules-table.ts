/** `npm run conformance:rules`: rewrites the rules table and the seed matrix of conformance/README.md. */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { generatedReadme } from "./readme.ts";

const readme = fileURLToPath(new URL("../README.md", import.meta.url));
writeFileSync(readme, generatedReadme(readFileSync(readme, "utf8")));
console.log(`rules table and seed matrix written to ${readme}`);
