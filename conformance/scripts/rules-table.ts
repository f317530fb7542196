/** `npm run conformance:rules`: rewrites the rules table of conformance/README.md from the check definitions. */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withTable } from "../src/rules-table.ts";

const readme = fileURLToPath(new URL("../README.md", import.meta.url));
writeFileSync(readme, withTable(readFileSync(readme, "utf8")));
console.log(`rules table written to ${readme}`);
