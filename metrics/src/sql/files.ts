/**
 * Files read by DuckDB's own readers (`read_csv`, `read_parquet`, `read_json`) and checked by SQL, for `--engine sql`:
 * no row passes through JavaScript. The rules are those of the input layer (input/timestamp.ts exports the timestamp
 * pattern and the earliest year; ids are non-empty, NUL-free text or integers), carried out here as SQL:
 *
 * - each value that breaks a rule, or that DuckDB's reader might read differently from ours, becomes NULL, and one
 *   count over the loaded table says whether any did;
 * - a file DuckDB's reader refuses (invalid UTF-8, a short row, a bad quote, malformed JSON) stops the same way.
 *
 * Either way the file is then read by the input layer itself (input/read.ts), which names the file, line and column
 * in the words every engine uses, or, when it finds nothing wrong (a JSON `5.0` as an id, a duplicate JSON key), loads
 * the rows it read. So a file is refused with the same message on every engine, and what DuckDB loads is what the
 * in-memory engine would count: the differential tests hold both paths to one answer on every hostile file.
 */
import { access } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import { detectDelimiter, firstLine, formatOf, parquetLayout } from "../input/formats.ts";
import { MIN_YEAR, TIMESTAMP_PATTERN } from "../input/timestamp.ts";
import { MAX_LINE_BYTES } from "../input/utf8.ts";

/** The part of a connection the loader uses. */
export interface FileConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<{ getRowObjects(): unknown[] }>;
}

export interface TableSpec {
  table: "exposures" | "events";
  /** The file's required columns: two ids, then the instant. */
  columns: readonly [string, string, string];
  /** The table's columns. */
  out: readonly [string, string, string];
}

export const EXPOSURES: TableSpec = { table: "exposures", columns: ["user_id", "variant", "exposed_at"], out: ["user_id", "variant", "exposed_ms"] };
export const EVENTS: TableSpec = { table: "events", columns: ["user_id", "event", "timestamp"], out: ["user_id", "event", "ts_ms"] };

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
const MAX_SAFE = "9007199254740991";

/** A text id as the rules keep it: non-empty, without NUL; anything else NULL. */
const textId = (c: string) => `CASE WHEN ${c} <> '' AND NOT contains(${c}, chr(0)) THEN ${c} END`;

/** Epoch days of a proleptic Gregorian date (Hinnant's days_from_civil), in integer arithmetic. */
const epochDays = (y: string, m: string, d: string) => {
  const yy = `(${y} - CASE WHEN ${m} <= 2 THEN 1 ELSE 0 END)`;
  const era = `(${yy} // 400)`;
  const yoe = `(${yy} - ${era} * 400)`;
  const doy = `((153 * (${m} + CASE WHEN ${m} > 2 THEN -3 ELSE 9 END) + 2) // 5 + ${d} - 1)`;
  return `(${era} * 146097 + ${yoe} * 365 + ${yoe} // 4 - ${yoe} // 100 + ${doy} - 719468)`;
};

const daysInMonth = (y: string, m: string) =>
  `(CASE WHEN ${m} = 2 THEN CASE WHEN ${y} % 4 = 0 AND (${y} % 100 <> 0 OR ${y} % 400 = 0) THEN 29 ELSE 28 END WHEN ${m} IN (4, 6, 9, 11) THEN 30 ELSE 31 END)`;

/**
 * Epoch milliseconds of a text timestamp by the input layer's rules, or NULL when a rule refuses it. The common shapes
 * (seconds, at most three fraction digits, `Z` or `+hh:mm`; or no offset with a time zone) go through DuckDB's cast,
 * whose result is exact for them (checked by a strict pattern first: the cast alone would take 24:00 or a leading
 * space); every other shape the pattern allows is taken apart and computed in integer arithmetic.
 */
export function instantSql(c: string, timezone: string | undefined): string {
  const zoned = String.raw`[0-9]{4}-(0[1-9]|1[0-2])-[0-3][0-9][T ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,3})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])`;
  const wall = String.raw`[0-9]{4}-(0[1-9]|1[0-2])-[0-3][0-9][T ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,3})?`;
  const minYear = literal(String(MIN_YEAR));
  // The general case, over the pattern's groups (empty when a group did not take part). Evaluated only for the rows
  // the fast shapes leave, so a group is extracted where it is used instead of all at once.
  const GROUPS = ["y", "mo", "d", "h", "mi", "s", "f", "z", "sg", "oh", "om"];
  // By name: DuckDB numbers groups only up to 9.
  const group = (x: string) => `regexp_extract(${c}, ${literal(TIMESTAMP_PATTERN)}, [${GROUPS.map(literal).join(", ")}])[${literal(x)}]`;
  const int = (x: string) => `CAST(NULLIF(${group(x)}, '') AS BIGINT)`;
  const [y, mo, d, h, mi] = ["y", "mo", "d", "h", "mi"].map(int);
  const sec = `COALESCE(${int("s")}, 0)`;
  const ms = `COALESCE(CAST(NULLIF(rpad(left(${group("f")}, 3), 3, '0'), '') AS BIGINT), 0)`;
  const local = `(${epochDays(y, mo, d)} * 86400000 + ${h} * 3600000 + ${mi} * 60000 + ${sec} * 1000 + ${ms})`;
  const valid = `${y} >= ${MIN_YEAR} AND ${mo} BETWEEN 1 AND 12 AND ${d} BETWEEN 1 AND ${daysInMonth(y, mo)} AND ${h} <= 23 AND ${mi} <= 59 AND ${sec} <= 59`;
  const offset = `(CASE WHEN ${group("sg")} = '-' THEN -1 ELSE 1 END) * (${int("oh")} * 60 + COALESCE(${int("om")}, 0)) * 60000`;
  const general = [
    `CASE WHEN NOT (${valid}) THEN NULL`,
    `  WHEN ${group("z")} <> '' THEN ${local}`,
    `  WHEN ${group("sg")} <> '' THEN CASE WHEN ${int("oh")} <= 23 AND COALESCE(${int("om")}, 0) <= 59 THEN ${local} - ${offset} END`,
    timezone === undefined ? "  ELSE NULL END" : `  ELSE epoch_ms(timezone(${literal(timezone)}, make_timestamp(${local} * 1000))) END`,
  ].join(" ");
  return [
    `CASE WHEN ${c} >= ${minYear} AND regexp_full_match(${c}, ${literal(zoned)}) THEN epoch_ms(TRY_CAST(${c} AS TIMESTAMPTZ))`,
    timezone === undefined ? "" : ` WHEN ${c} >= ${minYear} AND regexp_full_match(${c}, ${literal(wall)}) THEN epoch_ms(timezone(${literal(timezone)}, TRY_CAST(${c} AS TIMESTAMP)))`,
    ` WHEN regexp_full_match(${c}, ${literal(TIMESTAMP_PATTERN)}) THEN ${general}`,
    " END",
  ].join("");
}

/** A CSV file as the three checked columns, or null when it must go to the input layer (an empty first line). */
async function csvRelation(file: string, spec: TableSpec, delimiter: string | undefined, timezone: string | undefined): Promise<string | null> {
  const d = await detectDelimiter(file, spec.columns, delimiter);
  if (d === null) return null;
  let names: string[];
  try {
    names = (parse(await firstLine(file), { delimiter: d, relax_column_count: true }) as string[][])[0].map((h) => h.trim());
  } catch {
    return null;
  }
  const index = spec.columns.map((name) => names.indexOf(name));
  if (index.some((i) => i < 0)) return null;
  const cols = names.map((_, i) => `c${i}`);
  // Positional names: any header (duplicates, quotes, spaces) is the input layer's business, not DuckDB's binder's.
  // The dialect and the columns are given; DuckDB's sniffer still runs (no auto_detect = false), for its estimate of
  // the row count alone: without one, the metric's join over the view planned badly and ran twice as long. skip and
  // comment are pinned, so the sniffer cannot decide to pass over lines. max_line_size stays DuckDB's (2 MiB): at
  // the input layer's 16 MiB every reader thread's buffer grew with it (10M events: 560 MB and 6.8 s, against 285 MB
  // and 4.2 s); a longer line fails DuckDB's read, and the input layer, which takes lines up to 16 MiB, reads the file.
  const read = `read_csv(${literal(file)}, header = true, skip = 0, comment = '', delim = ${literal(d)}, quote = '"', escape = '"', columns = {${cols.map((c) => `${literal(c)}: 'VARCHAR'`).join(", ")}}, strict_mode = true, null_padding = false)`;
  // csv-parse refuses a quote inside an unquoted value, which DuckDB keeps: a value holding a quote, in any column,
  // sends the file to the input layer, which knows whether it was quoted.
  const [a, b, t] = index.map((i) => `c${i}`);
  // (The instant's column needs no look: no timestamp pattern admits a quote.)
  const quoteFree = cols.filter((c) => c !== t).map((c) => `(${c} IS NULL OR NOT contains(${c}, '"'))`).join(" AND ") || "TRUE";
  return `SELECT ${textId(a)} AS ${spec.out[0]}, ${textId(b)} AS ${spec.out[1]}, CASE WHEN ${quoteFree} THEN ${instantSql(t, timezone)} END AS ${spec.out[2]} FROM ${read}`;
}

/** JSON Lines: ids as text or integers of JSON, instants as text. */
function jsonRelation(file: string, spec: TableSpec, timezone: string | undefined): string {
  const id = (c: string) => `CASE json_type(${c}) WHEN 'VARCHAR' THEN ${textId(`(${c} ->> '$')`)} WHEN 'BIGINT' THEN CASE WHEN abs(CAST(${c} AS HUGEINT)) <= ${MAX_SAFE} THEN CAST(CAST(${c} AS BIGINT) AS VARCHAR) END WHEN 'UBIGINT' THEN CASE WHEN CAST(${c} AS HUGEINT) <= ${MAX_SAFE} THEN CAST(CAST(${c} AS UBIGINT) AS VARCHAR) END END`;
  const [a, b, t] = spec.columns.map(ident);
  const read = `read_json(${literal(file)}, format = 'newline_delimited', columns = {${spec.columns.map((c) => `${literal(c)}: 'JSON'`).join(", ")}}, maximum_object_size = ${MAX_LINE_BYTES})`;
  return `SELECT ${id(a)} AS ${spec.out[0]}, ${id(b)} AS ${spec.out[1]}, CASE WHEN json_type(${t}) = 'VARCHAR' THEN ${instantSql(`(${t} ->> '$')`, timezone)} END AS ${spec.out[2]} FROM ${read}`;
}

const INTEGER = /^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|HUGEINT|UHUGEINT)$/;

/** Parquet: ids as text or integers, instants as TIMESTAMP (zone-less ones are wall-clock times) or text. */
async function parquetRelation(connection: FileConnection, file: string, spec: TableSpec, timezone: string | undefined): Promise<string | null> {
  const { local } = await parquetLayout(file, spec.columns);
  const read = `read_parquet(${literal(file)})`;
  const described = (await connection.runAndReadAll(`DESCRIBE SELECT ${spec.columns.map(ident).join(", ")} FROM ${read}`)).getRowObjects() as Array<{ column_type: string }>;
  const types = described.map((r) => r.column_type);
  const id = (c: string, type: string) => (type === "VARCHAR" ? textId(c) : INTEGER.test(type) ? `CAST(${c} AS VARCHAR)` : null);
  const [a, b, t] = spec.columns.map(ident);
  const ids = [id(a, types[0]), id(b, types[1])];
  let instant: string | null = null;
  if (types[2] === "VARCHAR") instant = instantSql(t, timezone);
  else if (/^TIMESTAMP(_MS|_NS|_S)? WITH TIME ZONE$|^TIMESTAMP(_MS|_NS|_S)?$/.test(types[2])) {
    // The input layer reads Parquet timestamps to the millisecond (a JavaScript Date): so does this. A zoned one is an
    // instant as it is; a cast to TIMESTAMP would apply the session's zone.
    const ms = types[2].includes("WITH TIME ZONE") ? `epoch_ms(${t})` : `epoch_ms(CAST(${t} AS TIMESTAMP))`;
    instant = !local[2] ? ms : timezone === undefined ? "NULL" : `epoch_ms(timezone(${literal(timezone)}, make_timestamp(${ms} * 1000)))`;
    instant = `CASE WHEN ${ms} >= ${Date.UTC(MIN_YEAR, 0, 1)} THEN ${instant} END`;
  }
  if (ids[0] === null || ids[1] === null || instant === null) return null; // another type: the input layer's reader
  return `SELECT ${ids[0]} AS ${spec.out[0]}, ${ids[1]} AS ${spec.out[1]}, ${instant} AS ${spec.out[2]} FROM ${read}`;
}

/** What `error()` says when a row of a checked view breaks a rule (see `loadNatively`'s "view"). */
export const ROW_REFUSED = "metrics: a row broke the input rules";

/**
 * Loads `file` into the spec's table with DuckDB's reader and the SQL checks. True when every row passed them; false
 * when the file must be read by the input layer instead (a row broke a rule, DuckDB refused the file, or a type or
 * shape this loader leaves to the input layer); the table may then hold anything and is replaced by the caller.
 *
 * As a "view", nothing is loaded: the spec's name becomes a view over the file in which every column is guarded by
 * the whole row's checks (a row that breaks one raises ROW_REFUSED). Whichever column a query reads or filters on
 * first, a row cannot be used or dropped without being checked, so the file is read, checked and counted in the
 * metric's own pass: no table in memory (a materialised 10M-event table cost more memory, and more time, than
 * DuckDB's whole read). True then means only that the view was made: a query over it fails when a row breaks a rule
 * or DuckDB refuses the file, and the caller reads the file with the input layer instead.
 */
export async function loadNatively(connection: FileConnection, spec: TableSpec, file: string, options: { delimiter?: string; timezone?: string }, as: "table" | "view" = "table"): Promise<boolean> {
  try {
    await access(file);
    // DuckDB's readers take a path as a glob: `events[1].csv` could read `events1.csv`. Such names go to the input layer.
    if (/[*?[\]{}]/.test(file)) return false;
    const format = formatOf(file);
    const relation =
      format === "csv" ? await csvRelation(file, spec, options.delimiter, options.timezone)
      : format === "jsonl" ? jsonRelation(file, spec, options.timezone)
      : await parquetRelation(connection, file, spec, options.timezone);
    if (relation === null) return false;
    // Nothing here depends on the rows' order (a refusal is placed by the input layer): DuckDB may load in parallel
    // without keeping it, which holds far less in memory.
    await connection.run("SET preserve_insertion_order = false");
    if (as === "view") {
      const ok = spec.out.map((c) => `r.${c} IS NOT NULL`).join(" AND ");
      const guarded = spec.out.map((c) => `CASE WHEN ${ok} THEN r.${c} ELSE error(${literal(ROW_REFUSED)}) END AS ${c}`).join(", ");
      await connection.run(`CREATE OR REPLACE VIEW ${spec.table} AS SELECT ${guarded} FROM (${relation}) r`);
      return true;
    }
    await connection.run(`CREATE OR REPLACE TABLE ${spec.table} AS ${relation}`);
  } catch {
    return false; // the input layer reads the file again and names what is wrong, or finds nothing wrong
  }
  const [row] = (await connection.runAndReadAll(`SELECT COUNT(*) AS bad FROM ${spec.table} WHERE ${spec.out.map((c) => `${c} IS NULL`).join(" OR ")}`)).getRowObjects() as Array<{ bad: bigint }>;
  return Number(row.bad) === 0;
}
