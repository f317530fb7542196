/**
 * Where a data file of the repository (the OpenAPI document, the default fixtures, the API reference page) is at run
 * time. In the checkout it is read where it lives; in a packed bundle (scripts/build-package.ts defines
 * `__BUNDLED_ASSETS__`) it was copied to `assets/` beside the bundle, under the same repository path.
 */
import { fileURLToPath } from "node:url";

declare const __BUNDLED_ASSETS__: boolean | undefined;
const bundled = typeof __BUNDLED_ASSETS__ !== "undefined" && __BUNDLED_ASSETS__;

/** The absolute path of `repoPath` (e.g. "generated/openapi.json", "docs/"). */
export function assetPath(repoPath: string): string {
  return fileURLToPath(bundled ? new URL(`./assets/${repoPath}`, import.meta.url) : new URL(`../${repoPath}`, import.meta.url));
}
