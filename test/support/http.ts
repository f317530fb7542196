/** The tests' HTTP client: one request to a base URL with a key and a JSON body, its answer read whole. */

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallInit {
  /** Sent as `Authorization: Bearer <key>` unless a header says otherwise; none when absent. */
  key?: string | null;
  method?: string;
  /** JSON-encoded, with its content type. */
  body?: unknown;
  /** Sent as it is (malformed bodies). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export async function call<T = any>(base: string, path: string, init: CallInit = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization ??= `Bearer ${init.key}`;
  let body: string | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers["content-type"] ??= "application/json";
  }
  const method = init.method ?? "GET";
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${base}${path}`, { method, headers, body });
    text = await res.text();
  } catch (err) {
    // undici says only "fetch failed": name the request and the socket's own error (ECONNRESET, ECONNREFUSED...).
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`${method} ${base}${path}: ${(err as Error).message}${cause ? ` (${cause.code ?? ""} ${cause.message ?? ""})` : ""}`, { cause: err });
  }
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}
