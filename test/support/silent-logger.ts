/** A logger that drops everything: for tests of code that takes one (serve, the backend log). */
import pino, { type Logger } from 'pino';

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
