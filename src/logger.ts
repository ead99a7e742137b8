import { writeSync } from 'node:fs';
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Config } from './config.ts';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = Parameters<FastifyBaseLogger['child']>[1];

/**
 * pino settings: JSON lines; credentials are redacted wherever they could appear. `level` is the
 * level's name and `time` an ISO 8601 instant in UTC, what log shippers read without a mapping
 * (docs/operations.md, "Logs").
 */
export function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    formatters: { level: levelName },
    timestamp: isoTime,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["proxy-authorization"]',
        'headers.authorization',
        '*.headers.authorization',
        'authorization',
        '*.authorization',
        'key',
        '*.key',
      ],
      censor: '[redacted]',
    },
    stream: linesTo(1),
  };
}

/** pino's level formatter: the name. pino calls it once per level and keeps the text, so it costs nothing per line. */
function levelName(label: string): { level: string } {
  return { level: label };
}

let lastMs = -1;
let lastTime = '';

/**
 * pino's timestamp: `,"time":"2026-11-28T10:44:21.123Z"`. The text is made once per millisecond,
 * since a busy server writes several lines in the same one and Date#toISOString is the dearest part.
 */
export function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

/** How long a write waits when the descriptor is non-blocking and full (EAGAIN, EBUSY), as pino's own destination does. */
const BUSY_WAIT_MS = 100;
const busy = new Int32Array(new SharedArrayBuffer(4));

/**
 * Where the lines go (stdout): each written with write(2) before the logging call returns, so no
 * line is lost when the process dies after it — what pino's default destination (sonic-boom in
 * its synchronous mode) does, without its work per line that a synchronous writer does not need:
 * a second UTF-8 copy of the line to account for what was written, and a drain event scheduled
 * (docs/performance.md, "What each speed-up buys").
 */
export function linesTo(fd: number): { write(line: string): void } {
  return {
    write(line: string): void {
      const bytes = Buffer.byteLength(line);
      let written = 0;
      let rest: Buffer | undefined;
      while (written < bytes) {
        try {
          // A short write (a pipe with less room than the line) continues from where it stopped.
          written += rest === undefined ? writeSync(fd, line) : writeSync(fd, rest, written);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code !== 'EAGAIN' && code !== 'EBUSY') throw err;
          Atomics.wait(busy, 0, 0, BUSY_WAIT_MS);
        }
        if (written < bytes) rest ??= Buffer.from(line);
      }
    },
  };
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Log = (...args: unknown[]) => void;

/**
 * A request's logger that becomes a real pino child only when the request writes a line at an
 * enabled level. Fastify asks for a child per request (to bind its id), and pino builds one
 * eagerly — bindings serialised, redaction wired — for every request, while
 * most requests, at LOG_LEVEL=warn every successful one, never log.
 */
class LazyChildLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  #real(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings);
    return this.#child;
  }

  #log(level: Level, args: unknown[]): void {
    if (this.#child === undefined && !this.isLevelEnabled(level)) return;
    (this.#real()[level] as Log)(...args);
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#real().level = level;
  }

  isLevelEnabled(level: string): boolean {
    const logger = (this.#child ?? this.#parent) as { isLevelEnabled?: (level: string) => boolean };
    return logger.isLevelEnabled?.(level) ?? true;
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
}

/** Fastify's childLoggerFactory: per-request loggers made lazily (see LazyChildLogger). */
export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  // A route with its own log level or serializers gets a real child at once, as Fastify would make.
  options.level !== undefined || options.serializers !== undefined
    ? logger.child(bindings, options)
    : (new LazyChildLogger(logger, bindings) as unknown as FastifyBaseLogger);
