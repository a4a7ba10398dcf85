// How a client tells refusals apart and when it calls again (docs/api.md, "Errors"): by the
// ErrorInfo reason, never by the message; and again only where the server says waiting helps
// (CONFLICT, UNAVAILABLE), with the same request (so the same request_id) after RetryInfo's
// delay. Nothing here retries on a guess.
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorReason } from "../gen/domino/errors/v1/error_reason_pb.js";
import { ErrorInfoSchema, RetryInfoSchema } from "../gen/google/rpc/error_details_pb.js";

export type Sleep = (ms: number) => Promise<void>;
export const sleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One call made again, and why: kept so a client can show (and a test can read) every one. */
export interface Retry {
  reason: string; // the ErrorInfo reason; the code's name when the refusal had no details
  delayMs: number;
  retryInfoMs: number | null; // the delay RetryInfo asked for (null: none)
}

// The wait when a refusal carries no RetryInfo: 1 s, doubling to 30 s (docs/api.md).
const FIRST_BACKOFF_MS = 1_000;
const LAST_BACKOFF_MS = 30_000;
export const MAX_ATTEMPTS = 8;
const WORTH_AGAIN = [ErrorReason.CONFLICT, ErrorReason.UNAVAILABLE];

/** The ErrorInfo reason of a refusal ("NOT_YOUR_TURN"), or undefined when it carries none. */
export function reasonOf(error: unknown): string | undefined {
  return error instanceof ConnectError ? error.findDetails(ErrorInfoSchema)[0]?.reason : undefined;
}

export function isReason(error: unknown, ...reasons: ErrorReason[]): boolean {
  const reason = reasonOf(error);
  return reason !== undefined && reasons.some((r) => ErrorReason[r] === reason);
}

export function retryDelayMs(error: ConnectError): number | undefined {
  const delay = error.findDetails(RetryInfoSchema)[0]?.retryDelay;
  return delay === undefined ? undefined : Number(delay.seconds) * 1000 + delay.nanos / 1e6;
}

/** Whether the server said to call again: CONFLICT or UNAVAILABLE; with `byCode`, also an
 * UNAVAILABLE with no details at all (what gRPC itself says for a connection it lost before
 * any service read the call: safe only for calls that are idempotent anyway). */
export function worthAgain(error: ConnectError, byCode = true): boolean {
  if (isReason(error, ...WORTH_AGAIN)) return true;
  return byCode && reasonOf(error) === undefined && error.code === Code.Unavailable;
}

/** The delay before attempt `attempt` + 1 of a call refused with `error`: RetryInfo's delay
 * (else 1 s), doubled for each refusal of the same call before, to at most 30 s. */
export function delayBeforeNext(error: ConnectError, attempt: number): number {
  const first = retryDelayMs(error) ?? FIRST_BACKOFF_MS;
  return Math.min(first * 2 ** (attempt - 1), Math.max(first, LAST_BACKOFF_MS));
}

export type OnRetry = (retry: Retry) => void;

export function retryOf(error: ConnectError, delayMs: number): Retry {
  return { reason: reasonOf(error) ?? Code[error.code], delayMs, retryInfoMs: retryDelayMs(error) ?? null };
}

/** `call`'s answer, calling it again (the same request) while the server says to. */
export async function calledUntilAnswered<T>(call: () => Promise<T>, wait: Sleep, onRetry: OnRetry,
                                             byCode = true): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      const error = ConnectError.from(e);
      if (attempt >= MAX_ATTEMPTS || !worthAgain(error, byCode)) throw error;
      const delayMs = delayBeforeNext(error, attempt);
      onRetry(retryOf(error, delayMs));
      await wait(delayMs);
    }
  }
}
