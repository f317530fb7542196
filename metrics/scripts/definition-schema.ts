/** `npm run build:schema -w metrics`: writes definition.schema.json from src/definition-schema.ts. */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { definitionSchema } from "../src/definition-schema.ts";

export const schemaFile = fileURLToPath(new URL("../definition.schema.json", import.meta.url));
export const schemaText = () => `${JSON.stringify(definitionSchema, null, 2)}\n`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(schemaFile, schemaText());
  console.log(`written ${schemaFile}`);
}
