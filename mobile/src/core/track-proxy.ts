/**
 * wrapTrackClient: a Proxy with the analytics client's whole surface. Its `track` runs the original first and
 * hands back exactly what the original did (value, promise, or the thrown error); only then is the event offered
 * to the interview client, whose failures never reach the caller. Every other member passes through.
 *
 * Methods are bound to the target (private fields and native internals need the real object as `this`), and the
 * bound functions are cached so `wrapped.flush === wrapped.flush` like on the original.
 */
export type TrackClient = { track: (...args: any[]) => any };

/** A frozen data property: a Proxy must return it unchanged (a language invariant), so it cannot be bound or wrapped. */
function isFixed(target: object, prop: PropertyKey): boolean {
  const d = Reflect.getOwnPropertyDescriptor(target, prop);
  return d !== undefined && !d.configurable && d.writable === false;
}

export function wrapTrack<T extends TrackClient>(target: T, observe: (eventName: unknown, properties: unknown) => void, onFrozenTrack: () => void): T {
  // Reported once, here: the app must call client.track itself after the provider for this client.
  if (isFixed(target, "track")) onFrozenTrack();
  // Two caches: the same function could sit under `track` and under another name, and only `track` is wrapped.
  const bound = new WeakMap<Function, Function>();
  const tracks = new WeakMap<Function, Function>();
  const proxy: T = new Proxy(target, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver);
      if (typeof value !== "function" || isFixed(t, prop)) return value;
      const cache = prop === "track" ? tracks : bound;
      const known = cache.get(value);
      if (known) return known;
      const fn = prop === "track" ? wrappedTrack(t, value) : value.bind(t);
      cache.set(value, fn);
      return fn;
    },
  });

  function wrappedTrack(t: T, original: Function) {
    return function track(this: unknown, ...args: unknown[]) {
      // Called on the proxy (or detached): the original sees its own object, as it would unwrapped.
      const self = this === proxy || this === undefined ? t : this;
      let result: unknown;
      try {
        result = original.apply(self, args);
      } catch (err) {
        // The app attempted the event; the provider failing is no reason to miss the invite. observe never throws.
        observe(args[0], args[1]);
        throw err;
      }
      observe(args[0], args[1]);
      return result;
    };
  }
  return proxy;
}
