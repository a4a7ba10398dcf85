// A player's session as docs/clients.md ("Sign in") describes it: a device pair the app keeps,
// a 15-minute access token refreshed before it runs out, a single-use refresh token, and a
// sign-in again with the pair when the session is gone. Calls made through it are sent again
// after a refusal for the token (TOKEN_EXPIRED: refresh; SESSION_ENDED: sign in again) and
// where the server says to (retry.ts), never otherwise.
import type { Client } from "@connectrpc/connect";
import { timestampMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import { AccountService, type Session } from "../gen/domino/account/v1/account_service_pb.js";
import { ErrorReason } from "../gen/domino/errors/v1/error_reason_pb.js";
import { calledUntilAnswered, isReason, reasonOf, type OnRetry, type Sleep } from "./retry.js";

export const CALL_TIMEOUT_MS = 10_000;
const MOST_REFRESH_MARGIN_MS = 60_000;
// The reasons after which the refresh token is spent: sign in again with the device pair.
const SIGN_IN_AGAIN = [ErrorReason.REFRESH_TOKEN_INVALID, ErrorReason.REFRESH_TOKEN_REUSED,
                       ErrorReason.SESSION_ENDED];

export interface DevicePair {
  deviceId: string;
  deviceSecret: string;
}

export function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A new device: an id of 32 characters of [0-9a-f] and a 256-bit secret in hex. */
export function newDevicePair(): DevicePair {
  return { deviceId: randomHex(16), deviceSecret: randomHex(32) };
}

export type Headers = Record<string, string>;

export class PlayerSession {
  refreshes = 0;
  signIns = 0;
  private session: Session | undefined;
  private refreshAtMs = 0; // on the local clock: a while before the access token expires
  private serverAheadMs = 0; // the server's clock less ours, from the last server_time seen

  constructor(private readonly accounts: Client<typeof AccountService>, readonly pair: DevicePair,
              private readonly displayName: string, private readonly onRetry: OnRetry,
              private readonly wait: Sleep, private readonly now: () => number = Date.now) {}

  get playerId(): string {
    return this.current().playerId;
  }

  async signIn(): Promise<void> {
    const answer = await calledUntilAnswered(() => this.accounts.signInWithDevice(
      { ...this.pair, displayName: this.displayName }, { timeoutMs: CALL_TIMEOUT_MS }), this.wait, this.onRetry);
    this.take(answer.session);
    this.signIns++;
  }

  /** A new access token for the refresh token, kept before the access token is used; a spent
   * refresh token, or a refresh whose outcome is unknown (no answer: the old token may be
   * retired already, and presenting it again would end the session), signs in again. */
  async refresh(): Promise<void> {
    const refreshToken = this.current().refreshToken;
    try {
      const answer = await calledUntilAnswered(() => this.accounts.refreshSession(
        { refreshToken }, { timeoutMs: CALL_TIMEOUT_MS }), this.wait, this.onRetry, false);
      this.take(answer.session);
      this.refreshes++;
    } catch (e) {
      if (!isReason(e, ...SIGN_IN_AGAIN) && reasonOf(e) !== undefined) throw e;
      await this.signIn();
    }
  }

  /** The server's clock as a view or stream message gave it: token times are the server's. */
  sawServerTime(serverTime: Timestamp | undefined): void {
    if (serverTime !== undefined) this.serverAheadMs = timestampMs(serverTime) - this.now();
  }

  /** The headers of a call now, the token refreshed first if it is about to expire. */
  async headers(): Promise<Headers> {
    if (this.now() >= this.refreshAtMs) await this.refresh();
    return { authorization: `Bearer ${this.current().accessToken}` };
  }

  /** `call` with this session's token, made again after a refusal for the token or where
   * the server says to; `call` must send the same request each time (its request_id). */
  async call<T>(call: (headers: Headers) => Promise<T>): Promise<T> {
    for (let renewed = 0; ; renewed++) {
      const headers = await this.headers();
      try {
        return await calledUntilAnswered(() => call(headers), this.wait, this.onRetry);
      } catch (e) {
        if (renewed >= 2) throw e;
        if (isReason(e, ErrorReason.TOKEN_EXPIRED)) await this.refresh();
        else if (isReason(e, ErrorReason.SESSION_ENDED)) await this.signIn();
        else throw e;
      }
    }
  }

  /** After a stream ended for its token: refresh unless the session already holds a newer one. */
  async renewAfter(error: unknown, headersUsed: Headers): Promise<boolean> {
    if (isReason(error, ErrorReason.TOKEN_EXPIRED)) {
      if (headersUsed.authorization === `Bearer ${this.current().accessToken}`) await this.refresh();
      return true;
    }
    if (isReason(error, ErrorReason.SESSION_ENDED)) {
      await this.signIn();
      return true;
    }
    return false;
  }

  private take(session: Session | undefined): void {
    if (session === undefined || session.accessExpiresAt === undefined) throw new Error("a sign-in answered no session");
    this.session = session;
    const lifetimeMs = timestampMs(session.accessExpiresAt) - this.serverAheadMs - this.now();
    this.refreshAtMs = this.now() + lifetimeMs - Math.min(MOST_REFRESH_MARGIN_MS, lifetimeMs / 4);
  }

  private current(): Session {
    if (this.session === undefined) throw new Error("not signed in");
    return this.session;
  }
}
