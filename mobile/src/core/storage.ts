/**
 * Where a client keeps its state in the app's storage: one set of keys per server URL and public key, so two
 * environments in one app (staging and production, two projects) never share a config, a queue or an opt-out.
 * Keys: `interviews.<what>.v2|<baseUrl>|<publicKey>` (the public key is not a secret; it ships in the app).
 */
import type { KeyValueStorage } from "./types.ts";

export interface StorageKeys {
  config: string;
  queue: string;
  optOut: string;
}

export function storageKeys(baseUrl: string, publicKey: string): StorageKeys {
  const scope = `${baseUrl.trim().replace(/\/+$/, "")}|${publicKey}`;
  return { config: `interviews.participant-config.v2|${scope}`, queue: `interviews.prompt-events.v2|${scope}`, optOut: `interviews.opt-out.v2|${scope}` };
}

/** Removes a key: `removeItem` where the storage has it (AsyncStorage, localStorage), else an empty value, read as absent. */
export function removeKey(storage: KeyValueStorage, key: string): Promise<void> | void {
  return storage.removeItem ? storage.removeItem(key) : storage.setItem(key, "");
}
