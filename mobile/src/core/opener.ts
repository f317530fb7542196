/**
 * The `open` effect: an external URL through the app's opener, or the platform's.
 * - The platform's, where the core can see one, is a browser's `window.open` in a new tab. React Native's entry
 *   passes `Linking.openURL`; on a bare JavaScript VM there is none.
 * - Not `window.open(url, "_blank", "noopener")`: with `noopener` the HTML standard has it return null whether or not
 *   a window opened, so success could not be told from a blocked pop-up. Opened without it, the new window's
 *   `opener` is cut at once, which keeps the page from reaching back into the app.
 * - Success means something opened the URL: an opener that throws, returns a promise that rejects (Linking.openURL
 *   when no app takes the URL), or a pop-up the browser blocked is a failure, reported, never thrown into the app.
 */
import type { Diagnostic, OpenFallback } from "./types.ts";

export function platformOpener(): OpenFallback | undefined {
  const open = (globalThis as { open?: (url: string, target?: string) => { opener: unknown } | null }).open;
  if (typeof open !== "function") return undefined;
  return (url) => {
    const opened = open.call(globalThis, url, "_blank");
    if (!opened) throw new Error("the browser blocked the new window");
    try {
      opened.opener = null;
    } catch {
      // A window of another origin may refuse the write; it has navigated away from us already.
    }
  };
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Opens `url`; true when something opened it. */
export async function openExternal(opener: OpenFallback | undefined, url: string, diagnose: (d: Diagnostic) => void): Promise<boolean> {
  if (!opener) {
    diagnose({ type: "fallback_unavailable", url });
    return false;
  }
  try {
    await opener(url);
    diagnose({ type: "fallback_opened", url });
    return true;
  } catch (err) {
    diagnose({ type: "bridge_error", error: `openFallbackUrl failed: ${errorText(err)}` });
    return false;
  }
}
