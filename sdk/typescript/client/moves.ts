// Which of the view's legal moves to make. The server says what is legal (MatchView.legal_moves:
// the plays, each on its end, or the draw; never a pass), so a client needs no rules of its
// own: any of them will do, and a play goes before the draw only to keep the match short.
import { MoveKind, type Move, type Tile } from "../gen/domino/match/v1/match_service_pb.js";

export type Play = Move & { tile: Tile };

export function isPlay(move: Move): move is Play {
  return move.kind === MoveKind.PLAY && move.tile !== undefined;
}

export function chosenMove(legal: Move[]): Move | undefined {
  return legal.find(isPlay) ?? legal.find((m) => m.kind === MoveKind.DRAW);
}
