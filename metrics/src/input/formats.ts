/**
 * The three file formats, each read as records of the required columns, in batches, with the place of every value
 * for error messages. Nothing here judges a value; read.ts does that, the same way for every format.
 *
 * - CSV: a header row naming the columns (any order, extra columns ignored). The delimiter is `,`, `;`, tab or `|`,
 *   detected from the header (the one that splits it into the required names), or given. Values are kept exactly:
 *   no trimming, quotes as RFC 4180. A byte-order mark is dropped.
 * - JSON Lines (`.jsonl`, `.ndjson`, `.json` holding one object per line): each line one object with the columns as
 *   keys; blank lines skipped.
 * - Parquet (`.parquet`): the columns by name; timestamps as TIMESTAMP or as ISO strings. A TIMESTAMP without a zone
 *   (isAdjustedToUTC = false) is a wall-clock time: it follows --timezone, and is refused without one, as in CSV.
 */
import { createReadStream } from "node:fs";
import { MAX_LINE_BYTES, utf8Stream } from "./utf8.ts";
import { open, stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { parse, CsvError } from "csv-parse";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from "hyparquet";
import { MetricInputError } from "../validate.ts";

/** One batch of records: the required columns' values in order, and where each came from. */
export interface Batch {
  cells: unknown[][];
  /** "events.csv line 12, column 3 (timestamp)" for record i of the batch, column c of the required ones. */
  place(i: number, c: number): string | Promise<string>;
}

export type Format = "csv" | "jsonl" | "parquet";
const BATCH = 8192;
const DELIMITERS = [",", ";", "\t", "|"];
const named = (d: string) => (d === "\t" ? "tab" : JSON.stringify(d));

export function formatOf(file: string): Format {
  if (/\.parquet$/i.test(file)) return "parquet";
  if (/\.(jsonl|ndjson|json)$/i.test(file)) return "jsonl";
  return "csv";
}

/** The first line of a file (up to 64 KB), without a byte-order mark; "" for an empty file. */
export async function firstLine(file: string): Promise<string> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(65_536);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString("utf8").replace(/^\uFEFF/, "");
    return text.split(/\r?\n/, 1)[0];
  } finally {
    await handle.close();
  }
}

const headerCells = (line: string, d: string) => line.split(d).map((h) => h.trim().replace(/^"(.*)"$/, "$1"));

/** The delimiter that splits the header into all the required names. */
export async function detectDelimiter(file: string, required: readonly string[], given?: string): Promise<string | null> {
  const line = await firstLine(file);
  if (line === "") return null; // an empty file: no records
  if (given !== undefined) return given;
  const fits = DELIMITERS.filter((d) => required.every((name) => headerCells(line, d).includes(name)));
  if (fits.length === 0) {
    throw new MetricInputError(`${file} line 1`, `must be a header naming the columns ${required.join(", ")}, separated by , ; tab or | (or give --delimiter); found ${JSON.stringify(line.slice(0, 200))}`);
  }
  return fits[0];
}

/**
 * The line a CSV record ends on, found again only when a value is refused: asking csv-parse for every record's line
 * costs a quarter of the reading time.
 */
async function lineOfRecord(file: string, delimiter: string, record: number): Promise<number | undefined> {
  let n = 0;
  for await (const { info } of createReadStream(file).pipe(parse({ delimiter, bom: true, info: true, skip_empty_lines: true })) as AsyncIterable<{ info: { lines: number } }>) {
    if (n++ === record) return info.lines;
  }
  return undefined;
}

async function* csvBatches(file: string, required: readonly string[], delimiter: string | undefined): AsyncGenerator<Batch> {
  const d = await detectDelimiter(file, required, delimiter);
  if (d === null) return;
  let index: number[] = [];
  const bytes = utf8Stream(createReadStream(file), file);
  const parser = bytes.pipe(parse({ delimiter: d, bom: true, skip_empty_lines: true, max_record_size: MAX_LINE_BYTES }));
  // pipe() does not carry the source's error on: a refused byte must end the parse with that refusal.
  bytes.on("error", (err) => parser.destroy(err));
  let header = true;
  let records = 0; // data records read, the header not counted
  let cells: unknown[][] = [];
  const batch = (c: unknown[][], first: number): Batch => ({
    cells: c,
    place: async (i, col) => `${file} line ${(await lineOfRecord(file, d, first + i + 1)) ?? "?"}, column ${index[col] + 1} (${required[col]})`,
  });
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (header) {
        const names = record.map((h) => h.trim());
        index = required.map((name) => names.indexOf(name));
        const missing = required.filter((_, i) => index[i] < 0);
        if (missing.length) throw new MetricInputError(`${file} line 1`, `has no column ${missing.join(", ")} (delimiter ${named(d)}; columns: ${names.join(", ")})`);
        header = false;
        continue;
      }
      cells.push([record[index[0]], record[index[1]], record[index[2]]]);
      if (cells.length === BATCH) {
        yield batch(cells, records);
        records += cells.length;
        cells = [];
      }
    }
  } catch (err) {
    if (err instanceof CsvError) {
      const line = (err as CsvError & { lines?: number }).lines;
      const counts = /expect (\d+), got (\d+)/.exec(err.message);
      const problem = counts
        ? `has ${counts[2]} fields where the header has ${counts[1]}`
        : err.code === "CSV_MAX_RECORD_SIZE"
          ? `has a row longer than ${MAX_LINE_BYTES / 2 ** 20} MiB (a quote never closed?)`
          : err.code === "CSV_QUOTE_NOT_CLOSED"
          ? "opens a quote that is never closed"
          : /QUOTE/.test(err.code)
            ? "has a quote inside an unquoted value (quote the whole value, doubling inner quotes)"
            : err.message;
      throw new MetricInputError(`${file} line ${line ?? "?"}`, `is not valid CSV (delimiter ${named(d)}): ${problem}`);
    }
    throw err;
  }
  if (cells.length) yield batch(cells, records);
}

async function* jsonlBatches(file: string, required: readonly string[]): AsyncGenerator<Batch> {
  const bytes = utf8Stream(createReadStream(file), file);
  let refused: Error | undefined;
  const reader = createInterface({ input: bytes, crlfDelay: Infinity });
  // readline's iterator does not reject on an input error: keep it, stop reading, and throw it after the loop.
  bytes.on("error", (err) => {
    refused = err;
    reader.close();
  });
  let cells: unknown[][] = [];
  let raw: string[] = [];
  let lines: number[] = [];
  let n = 0;
  const batch = (c: unknown[][], r: string[], l: number[]): Batch => ({
    cells: c,
    place: (i, col) => {
      const at = r[i].indexOf(JSON.stringify(required[col]));
      return `${file} line ${l[i]}${at >= 0 ? `, column ${at + 1}` : ""} (${required[col]})`;
    },
  });
  for await (const text of reader) {
    n++;
    const line = n === 1 ? text.replace(/^\uFEFF/, "") : text;
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      const at = /position (\d+)/.exec((err as Error).message);
      throw new MetricInputError(`${file} line ${n}${at ? `, column ${Number(at[1]) + 1}` : ""}`, `is not valid JSON: ${(err as Error).message}`);
    }
    if (Array.isArray(value) && n === 1) throw new MetricInputError(`${file} line 1`, "is a JSON array: give one object per line (JSON Lines), e.g. jq -c '.[]' in.json > in.jsonl");
    if (!value || typeof value !== "object" || Array.isArray(value)) throw new MetricInputError(`${file} line ${n}`, `must be a JSON object with ${required.join(", ")}`);
    const o = value as Record<string, unknown>;
    cells.push(required.map((k) => (Object.hasOwn(o, k) ? o[k] : undefined)));
    raw.push(line);
    lines.push(n);
    if (cells.length === BATCH) {
      yield batch(cells, raw, lines);
      cells = [];
      raw = [];
      lines = [];
    }
  }
  if (refused) throw refused;
  if (cells.length) yield batch(cells, raw, lines);
}

/**
 * A Parquet file's row count and, for each required column, whether it holds TIMESTAMP values without a zone
 * (isAdjustedToUTC = false): wall-clock times. One reading of the metadata for both carriers of the rules (this
 * reader and DuckDB's, sql/files.ts). Refuses a file that is not Parquet or lacks a required column.
 */
export async function parquetLayout(file: string, required: readonly string[]): Promise<{ buffer: Awaited<ReturnType<typeof asyncBufferFromFile>>; rows: number; local: boolean[] }> {
  try {
    const buffer = await asyncBufferFromFile(file);
    const metadata = await parquetMetadataAsync(buffer);
    const elements = parquetSchema(metadata).children.map((c) => c.element);
    const names = elements.map((e) => e.name);
    const missing = required.filter((name) => !names.includes(name));
    if (missing.length) throw new MetricInputError(file, `has no column ${missing.join(", ")} (columns: ${names.join(", ")})`);
    const local = required.map((name) => {
      const type = elements.find((e) => e.name === name)?.logical_type;
      return type?.type === "TIMESTAMP" && type.isAdjustedToUTC === false;
    });
    return { buffer, rows: Number(metadata.num_rows), local };
  } catch (err) {
    if (err instanceof MetricInputError) throw err;
    throw new MetricInputError(file, `is not a readable Parquet file: ${(err as Error).message}`);
  }
}

async function* parquetBatches(file: string, required: readonly string[]): AsyncGenerator<Batch> {
  if ((await stat(file)).size === 0) return; // an empty file: no records
  const { buffer, rows, local } = await parquetLayout(file, required);
  for (let start = 0; start < rows; start += BATCH * 8) {
    const end = Math.min(rows, start + BATCH * 8);
    const objects = await parquetReadObjects({ file: buffer, columns: [...required], rowStart: start, rowEnd: end });
    // The reader gives a zone-less timestamp as if it were UTC: handed on as the wall-clock time it is (no offset), it
    // follows --timezone, or is refused without one, exactly as the same value in a CSV file.
    const cell = (o: Record<string, unknown>, k: string, col: number) => {
      const v = o[k];
      return local[col] && v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString().slice(0, 23) : v;
    };
    yield { cells: objects.map((o) => required.map((k, col) => cell(o, k, col))), place: (i, col) => `${file} row ${start + i + 1}, column ${required[col]}` };
  }
}

/** The required columns of `file`, in batches. */
export function readBatches(file: string, required: readonly string[], options: { delimiter?: string } = {}): AsyncGenerator<Batch> {
  const format = formatOf(file);
  if (format === "parquet") return parquetBatches(file, required);
  if (format === "jsonl") return jsonlBatches(file, required);
  return csvBatches(file, required, options.delimiter);
}
