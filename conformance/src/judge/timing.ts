/** Waiting and the windows within which an attempt may land: shared by the checks and the model. */

export const sleep = (ms: number) => new Promise<void>((res) => setTimeout(res, ms));

/** How far a retry may land from its configured delay: early by max(100 ms, 10%), late by max(250 ms, 20%). */
export const retryWindow = (delayMs: number): [number, number] => [delayMs - Math.max(100, delayMs * 0.1), delayMs + Math.max(250, delayMs * 0.2)];
