/** Work the app runs in the background: started when the app is ready, stopped (and awaited) when it closes. */
export interface Job {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Runs `work` at once and then every `everyMs` until stopped; a failure is reported and the next
 * run goes ahead. Runs never overlap; stop() waits for the one in progress.
 */
export function periodic(everyMs: number, work: () => Promise<unknown>, onError: (err: unknown) => void): Job {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  const run = () => {
    running = work()
      .then(() => undefined, onError)
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(run, everyMs).unref();
      });
  };
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      run();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
