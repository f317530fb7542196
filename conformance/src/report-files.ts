/**
 * `--report <format> <file>` on the suite's command and the proxy's: two values and repeatable, which commander's
 * options are not, so read by hand. Removes them from `argv`; a bad one exits 2, said plainly.
 */
import { html } from "./report-html.ts";
import { json, junit } from "./report.ts";

export const FORMATS = { html, junit, json } as const;

export function takeReports(argv: string[], example: string): Array<{ format: keyof typeof FORMATS; file: string }> {
  const reports: Array<{ format: keyof typeof FORMATS; file: string }> = [];
  for (let r = argv.indexOf("--report"); r >= 0; r = argv.indexOf("--report")) {
    const [format, file] = [argv[r + 1], argv[r + 2]];
    if (!(format in FORMATS) || !file || file.startsWith("--")) {
      console.error(`--report takes a format (html, junit or json) and a file, e.g. --report html ${example}; got ${JSON.stringify([format, file].filter(Boolean).join(" "))}`);
      process.exit(2);
    }
    reports.push({ format: format as keyof typeof FORMATS, file });
    argv.splice(r, 3);
  }
  return reports;
}
