// A whole practice match played as docs/clients.md says a client plays one, over whichever
// transport the caller gives (connect-web through the web edge, connect-node straight to the
// services): sign in by device, DescribeRules, StartPractice (nothing but a request_id, unless
// asked for the shortest target), the seed, WatchMatch from its current view, every turn the
// view gives (a play, or the draw when that is what legal_moves holds: there is no pass), and
// at the end the final view and ListMyMatches' result for the match.
import { ConnectError, type Client } from "@connectrpc/connect";
import type { DescEnum } from "@bufbuild/protobuf";
import { AccountService } from "../gen/domino/account/v1/account_service_pb.js";
import { ErrorReason } from "../gen/domino/errors/v1/error_reason_pb.js";
import {
  MatchResultSchema, MatchService, MatchStatus, MatchStatusSchema, type DescribeRulesResponse, type MatchView,
} from "../gen/domino/match/v1/match_service_pb.js";
import { MatchmakingService } from "../gen/domino/matchmaking/v1/matchmaking_service_pb.js";
import { chosenMove, isPlay } from "./moves.js";
import {
  delayBeforeNext, isReason, reasonOf, retryOf, sleep, worthAgain, type OnRetry, type Retry, type Sleep,
} from "./retry.js";
import { CALL_TIMEOUT_MS, newDevicePair, PlayerSession, randomHex, type DevicePair } from "./session.js";

export interface PracticeClients {
  accounts: Client<typeof AccountService>;
  matchmaking: Client<typeof MatchmakingService>;
  match: Client<typeof MatchService>;
}

export interface PracticeOptions {
  pair?: DevicePair; // default: a new device
  displayName?: string;
  shortestTarget?: boolean; // the smallest of the default family's targets, so the match is short
  wait?: Sleep;
  onStatus?: (text: string) => void;
  onRules?: (rules: DescribeRulesResponse) => void;
  onView?: (view: MatchView) => void;
  onRetry?: OnRetry; // told before each wait to call again
}

export interface PracticeSummary {
  playerId: string;
  matchId: string;
  rules: string;
  variant: string;
  target: number;
  yourSeat: number;
  status: string; // MATCH_STATUS_ENDED
  winner: number | null; // the winning side; null for none
  scores: number[];
  rounds: number;
  plays: number;
  draws: number;
  seedTaken: boolean;
  refused: string[]; // the reasons of moves refused (a view that was old): none expected
  retries: Retry[];
  signIns: number;
  refreshes: number;
  streams: number; // WatchMatch streams opened (one, and one more after each token)
  history: { result: string; scores: number[] } | null; // ListMyMatches' line for the match
}

// Refusals of a move that mean the view it was chosen from is old: the stream's next message
// has the newer one (docs/api.md: a FAILED_PRECONDITION in a match).
const OLD_VIEW = [ErrorReason.NOT_YOUR_TURN, ErrorReason.TILE_NOT_HELD, ErrorReason.TILE_DOES_NOT_FIT,
                  ErrorReason.END_REQUIRED, ErrorReason.WRONG_LEAD, ErrorReason.MUST_PLAY, ErrorReason.MUST_DRAW,
                  ErrorReason.CANNOT_DRAW, ErrorReason.ROUND_OVER, ErrorReason.ROUND_NOT_DEALT,
                  ErrorReason.NOT_ALLOWED_BY_RULES, ErrorReason.MATCH_ENDED];
const FINISHED = [MatchStatus.ENDED, MatchStatus.ABANDONED];
const MOST_STREAM_FAILURES = 8;

export function enumName(schema: DescEnum, value: number): string {
  return schema.value[value]?.name ?? String(value);
}

export async function playPractice(clients: PracticeClients, options: PracticeOptions = {}): Promise<PracticeSummary> {
  const wait = options.wait ?? sleep;
  const status = options.onStatus ?? (() => {});
  const retries: Retry[] = [];
  const onRetry: OnRetry = (retry) => {
    retries.push(retry);
    options.onRetry?.(retry);
  };
  const session = new PlayerSession(clients.accounts, options.pair ?? newDevicePair(),
                                    options.displayName ?? `Player ${randomHex(3)}`, onRetry, wait);
  await session.signIn();
  status("Signed in; asking for the rules…");
  const rules = await session.call((headers) => clients.match.describeRules({}, { headers, timeoutMs: CALL_TIMEOUT_MS }));
  options.onRules?.(rules);
  const request: { requestId: string; target?: number } = { requestId: crypto.randomUUID() };
  if (options.shortestTarget) request.target = Math.min(...rules.families[0].targets);
  status("Starting a practice match…");
  const started = await session.call((headers) => clients.matchmaking.startPractice(
    request, { headers, timeoutMs: CALL_TIMEOUT_MS }));
  const table = new Table(clients.match, session, started.matchId, options.onView ?? (() => {}));
  status("Playing…");
  await table.follow(wait, onRetry);
  const view = table.latest();
  status("The match has ended; reading the history…");
  const listed = await session.call((headers) => clients.match.listMyMatches(
    { pageSize: 10 }, { headers, timeoutMs: CALL_TIMEOUT_MS }));
  const line = listed.matches.find((m) => m.matchId === started.matchId);
  return {
    playerId: session.playerId, matchId: started.matchId, rules: view.rules, variant: view.variant,
    target: view.target, yourSeat: view.yourSeat ?? started.yourSeat, status: enumName(MatchStatusSchema, view.status),
    winner: view.winner ?? null, scores: view.scores, rounds: view.rounds.length, plays: table.plays,
    draws: table.draws, seedTaken: table.seedTaken, refused: table.refused, retries, signIns: session.signIns,
    refreshes: session.refreshes, streams: table.streams,
    history: line ? { result: enumName(MatchResultSchema, line.result), scores: line.scores } : null,
  };
}

/** One match followed on its stream and played from the caller's seat. */
class Table {
  plays = 0;
  draws = 0;
  streams = 0;
  seedTaken = false;
  refused: string[] = [];
  private view: MatchView | undefined;
  private actedAt = -1n; // the version of the last view a move was sent for
  private seedSent = false;

  constructor(private readonly match: Client<typeof MatchService>, private readonly session: PlayerSession,
              private readonly matchId: string, private readonly onView: (view: MatchView) => void) {}

  latest(): MatchView {
    if (this.view === undefined) throw new Error("no view of the match was received");
    return this.view;
  }

  get ended(): boolean {
    return this.view !== undefined && FINISHED.includes(this.view.status);
  }

  /** The stream until the match ends, opened again from the last version received when it
   * ends first: at its token's expiry (refresh), or on the server's word (retry.ts). */
  async follow(wait: Sleep, onRetry: OnRetry): Promise<void> {
    let failures = 0;
    while (!this.ended) {
      const headers = await this.session.headers();
      const fromVersion = this.view?.version ?? 0n;
      this.streams++;
      try {
        for await (const message of this.match.watchMatch({ matchId: this.matchId, fromVersion }, { headers })) {
          this.session.sawServerTime(message.serverTime);
          if (message.view !== undefined) await this.take(message.view);
          if (this.ended) break;
        }
        failures = 0;
      } catch (e) {
        const error = ConnectError.from(e);
        if (await this.session.renewAfter(error, headers)) continue;
        if (++failures >= MOST_STREAM_FAILURES || !worthAgain(error)) throw error;
        const delayMs = delayBeforeNext(error, failures);
        onRetry(retryOf(error, delayMs));
        await wait(delayMs);
      }
    }
  }

  private async take(view: MatchView): Promise<void> {
    if (this.view !== undefined && view.version <= this.view.version) return;
    this.view = view;
    this.onView(view);
    if (this.ended) return;
    await this.seedIfAsked(view);
    if (view.turn !== undefined && view.turn === view.yourSeat && view.version > this.actedAt) await this.act(view);
  }

  /** 32 random bytes in hex, once the server's commitment to its own seed is seen. */
  private async seedIfAsked(view: MatchView): Promise<void> {
    const seat = view.yourSeat === undefined ? undefined : view.seats[view.yourSeat];
    if (this.seedSent || view.status !== MatchStatus.WAITING_FOR_SEEDS || !seat?.awaitingSeed
        || !view.fairnessCommitment) return;
    this.seedSent = true;
    const seed = randomHex(32);
    try {
      await this.session.call((headers) => this.match.submitSeed(
        { matchId: this.matchId, seed }, { headers, timeoutMs: CALL_TIMEOUT_MS }));
      this.seedTaken = true;
    } catch (e) {
      if (!isReason(e, ErrorReason.SEED_NOT_TAKEN, ErrorReason.MATCH_ENDED)) throw e; // dealt without it
    }
  }

  private async act(view: MatchView): Promise<void> {
    const move = chosenMove(view.legalMoves);
    if (move === undefined) return;
    this.actedAt = view.version;
    const requestId = crypto.randomUUID(); // one per intended move: a call made again sends it again
    try {
      if (isPlay(move)) {
        await this.session.call((headers) => this.match.playTile(
          { matchId: this.matchId, requestId, tile: move.tile, end: move.end }, { headers, timeoutMs: CALL_TIMEOUT_MS }));
        this.plays++;
      } else {
        await this.session.call((headers) => this.match.drawTile(
          { matchId: this.matchId, requestId }, { headers, timeoutMs: CALL_TIMEOUT_MS }));
        this.draws++;
      }
    } catch (e) {
      if (!isReason(e, ...OLD_VIEW)) throw e;
      this.refused.push(reasonOf(e) ?? "");
    }
  }
}
