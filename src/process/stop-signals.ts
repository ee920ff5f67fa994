/**
 * SIGINT and SIGTERM, listened for from the first moment of start-up rather than once it is over.
 * Without a listener, the signal's default action kills the process on the spot: a signal sent
 * just after the server began listening (a rolling restart, say) would cut the requests it had
 * taken without draining them. A signal that comes during start-up is kept until the process can
 * stop cleanly; start-up is bounded (the store's connection timeout and migration attempts), so
 * that wait is short.
 */
export interface StopSignalsLogger {
  info(details: object, message: string): void;
}

export interface StopSignals {
  /** From now on a signal stops the process with `stop`; one that came during start-up does so at once. */
  started(stop: (signal: string) => void): void;
}

export function deferSignalsUntilStarted(logger: StopSignalsLogger): StopSignals {
  let stop: ((signal: string) => void) | undefined;
  let pending: string | undefined;
  const receive = (signal: string): void => {
    if (stop !== undefined) {
      stop(signal);
      return;
    }
    if (pending === undefined) logger.info({ signal }, 'stop requested while starting; stopping once started');
    pending ??= signal;
  };
  process.on('SIGINT', () => receive('SIGINT'));
  process.on('SIGTERM', () => receive('SIGTERM'));
  return {
    started(stopWith) {
      stop = stopWith;
      if (pending !== undefined) stopWith(pending);
    },
  };
}
