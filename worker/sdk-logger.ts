import type { LogLevel, LogMetadata, Logger as SdkLogger } from '@temporalio/worker';
import type { Logger } from '../core/logger.js';

const LEVELS = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * The Temporal SDK's log lines (worker state, failed activities and workflow tasks) written by our
 * pino logger, with its redaction and its destination, instead of the SDK's console logger. The SDK
 * puts an error under `error`: it goes under `err`, where pino's serializer keeps its type, message
 * and stack.
 */
export function sdkLoggerFrom(logger: Logger): SdkLogger {
  const log = (level: LogLevel, message: string, meta: LogMetadata = {}) => {
    const { error, ...rest } = meta;
    logger[LEVELS[level]]({ ...rest, ...(error === undefined ? {} : { err: error as unknown }) }, message);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}
