import type { FastifyServerOptions } from 'fastify';
import type { Config } from './config.ts';

/** pino settings: JSON lines; credentials are redacted wherever they could appear. */
export function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
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
  };
}
