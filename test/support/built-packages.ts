/**
 * Vitest global setup: the packages whose built output tests read or run (the client, receiver, metrics and mobile
 * dist/, the metrics command's and the sandbox's bundles) are built from the sources as they stand. `npm test` and the layers build them
 * first anyway (`pretest`); this covers `npx vitest run <file>`, and costs the up-to-date check (about a second)
 * when nothing changed.
 */
import { buildPackage } from "../../scripts/build-package.ts";

export default async function setup(): Promise<void> {
  for (const name of ["sdk", "receiver", "metrics", "mobile", "server"]) await buildPackage(name);
}
