// Turning protocol errors into one line for the user (docs/protocol.md, "Errors").
import { ResponseError } from 'vscode-jsonrpc/node';
import { ErrorCodes } from './protocol';

export function describeError(e: unknown): string {
  if (e instanceof ResponseError) {
    const data = (e.data ?? {}) as { hint?: unknown; pid?: unknown; phase?: unknown };
    switch (e.code) {
      case ErrorCodes.NoModel:
        return `${e.message}${typeof data.hint === 'string' ? ` (${data.hint})` : ''}`;
      case ErrorCodes.SessionLocked:
        return `${e.message}${data.pid !== undefined ? ` (locked by pid ${data.pid})` : ''}`;
      case ErrorCodes.Busy:
        return `${e.message}${typeof data.phase === 'string' ? ` (phase ${data.phase})` : ''}`;
      default:
        return e.message;
    }
  }
  return e instanceof Error ? e.message : String(e);
}
