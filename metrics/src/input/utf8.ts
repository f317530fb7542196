/**
 * Input files must be UTF-8. Node's decoders replace an invalid sequence with U+FFFD without a word, which can merge
 * two user ids or two arms; here the bytes are checked as they stream past, and the first invalid sequence is
 * refused with the file, its line and its byte offset. Passes the chunks through unchanged.
 */
import { isUtf8 } from "node:buffer";
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { MetricInputError } from "../validate.ts";

/** Length of the valid UTF-8 sequence starting at `i` (1 to 4); 0 when it is invalid or cut short. */
function sequenceAt(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c < 0x80) return 1;
  let need: number;
  let min: number;
  if (c >= 0xc2 && c <= 0xdf) [need, min] = [1, 0x80];
  else if (c >= 0xe0 && c <= 0xef) [need, min] = [2, 0x800];
  else if (c >= 0xf0 && c <= 0xf4) [need, min] = [3, 0x10000];
  else return 0;
  let cp = c & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
  for (let k = 1; k <= need; k++) {
    if (i + k >= b.length) return 0;
    const x = b[i + k];
    if ((x & 0xc0) !== 0x80) return 0;
    cp = (cp << 6) | (x & 0x3f);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
  if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return 0;
  return need + 1;
}

/** The first invalid sequence of `b` (the JS scan runs only once the native check has failed). */
function firstInvalid(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    if (b[i] < 0x80) {
      i++;
      continue;
    }
    const n = sequenceAt(b, i);
    if (n === 0) return i;
    i += n;
  }
  return -1;
}

/** Newlines before byte `offset` of the file, counted only to name the line of a refusal. */
async function lineAt(file: string, offset: number): Promise<number | "?"> {
  let line = 1;
  if (offset === 0) return line;
  try {
    for await (const chunk of createReadStream(file, { end: offset - 1 }) as AsyncIterable<Buffer>) {
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) line++;
    }
  } catch {
    return "?"; // not a file (a stream handed in): the byte offset alone places it
  }
  return line;
}

/**
 * The longest line read: a line is one string in the readers (V8 caps a string at 512 MiB and fails with a stack
 * trace), and no row of exposures or events comes near it. A JSON array on one line meets it first.
 */
export const MAX_LINE_BYTES = 16 * 2 ** 20;

async function* checked(source: AsyncIterable<Buffer>, file: string): AsyncGenerator<Buffer> {
  let offset = 0; // bytes before `carry`
  let carry: Buffer = Buffer.alloc(0); // an incomplete sequence at the end of the previous chunk
  let lineStart = 0; // byte offset where the current line began
  for await (const raw of source) {
    // One search per chunk: a line longer than the limit spans chunks without a newline (chunks are far smaller).
    const lastNewline = raw.lastIndexOf(10);
    const read = offset + carry.length + raw.length; // bytes read so far
    if (lastNewline >= 0) lineStart = read - raw.length + lastNewline + 1;
    else if (read - lineStart > MAX_LINE_BYTES) {
      const line = await lineAt(file, lineStart);
      throw new MetricInputError(`${file} line ${line}`, `is longer than ${MAX_LINE_BYTES / 2 ** 20} MiB without a line break (from byte offset ${lineStart}): every row is one line${/\.(jsonl|ndjson|json)$/i.test(file) ? "; a JSON array? give one object per line (JSON Lines), e.g. jq -c '.[]' in.json > in.jsonl" : ""}`);
    }
    const chunk = carry.length ? Buffer.concat([carry, raw]) : raw;
    // A chunk may end inside a character: its last lead byte without all its continuation bytes waits for the next.
    let end = chunk.length;
    for (let k = 1; k <= 3 && k <= chunk.length; k++) {
      const c = chunk[chunk.length - k];
      if ((c & 0xc0) === 0x80) continue;
      if (c >= 0xc0 && (c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2) > k) end = chunk.length - k;
      break;
    }
    const body = chunk.subarray(0, end);
    // The native check is the fast path; the byte-by-byte scan runs only to place a refusal.
    if (!isUtf8(body)) {
      const at = offset + firstInvalid(body);
      throw new MetricInputError(`${file} line ${await lineAt(file, at)}`, `is not valid UTF-8 at byte offset ${at} (0x${chunk.subarray(at - offset, at - offset + 4).toString("hex")}); save the file as UTF-8: nothing is replaced or guessed`);
    }
    carry = chunk.subarray(end);
    offset += end;
    yield body;
  }
  if (carry.length) throw new MetricInputError(`${file} line ${await lineAt(file, offset)}`, `is not valid UTF-8: it ends inside a character at byte offset ${offset}`);
}

/** The file's bytes as a stream, refused at the first byte that is not UTF-8. */
export function utf8Stream(source: AsyncIterable<Buffer>, file: string): Readable {
  return Readable.from(checked(source, file), { objectMode: false });
}
