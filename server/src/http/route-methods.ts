/** Which methods a request path has in the contract (HEAD wherever GET is): the 405's Allow and CORS preflights share it. */
export function routeMethods(routes: ReadonlyArray<{ method: string; expressPath: string }>): (path: string) => string[] {
  const patterns = routes.map((r) => ({ method: r.method.toUpperCase(), regex: new RegExp(`^/api${r.expressPath.replace(/:[^/]+/g, "[^/]+")}$`) }));
  return (path) => {
    const methods = patterns.filter((p) => p.regex.test(path)).map((p) => p.method);
    if (methods.includes("GET")) methods.push("HEAD");
    return [...new Set(methods)].sort();
  };
}
