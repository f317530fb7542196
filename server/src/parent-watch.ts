/**
 * npm runs a package's command through `sh -c`, and on SIGTERM npm signals that shell, which exits without passing the
 * signal on: `kill <npx pid>` left the sandbox, a listener or Prism running, orphaned. So a command started by npm
 * (npm sets `npm_command`) stops as on SIGTERM once its parent is gone. Outside npm nothing is watched:
 * `nohup api-sandbox &` from a script that then exits keeps running, as does `nohup npm start &` (npm and its shell
 * stay, only the script goes).
 */
export function stopWhenNpmParentExits(stop: () => void, everyMs = 200): void {
  if (process.env.npm_command === undefined) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    // process.ppid asks the system each time: a parent that exited leaves us to init (or a subreaper).
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, everyMs);
  timer.unref();
}
