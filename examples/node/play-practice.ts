// Plays a whole practice match over plain gRPC (HTTP/2 straight to the three services, no
// edge), with the generated TypeScript SDK and nothing of the server's, and prints a JSON
// summary of it on stdout (progress on stderr). The client is the SDK's (client/practice.ts):
// what docs/clients.md says a client does, with a call made again only where the server's
// ErrorInfo says CONFLICT or UNAVAILABLE, after its RetryInfo delay and with the same request.
//
//   npx tsx play-practice.ts [--match HOST:PORT] [--matchmaking HOST:PORT] [--accounts HOST:PORT]
//                            [--shortest-target] [--name NAME]
//
// The addresses default to DOMINO_MATCH_ADDRESS, DOMINO_MATCHMAKING_ADDRESS and
// DOMINO_ACCOUNT_ADDRESS, else those `make run` listens on; an address may be a URL
// (https://play.example.com for the public host over TLS).
import { parseArgs } from "node:util";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { AccountService } from "@domino/sdk/gen/domino/account/v1/account_service_pb.js";
import { MatchService } from "@domino/sdk/gen/domino/match/v1/match_service_pb.js";
import { MatchmakingService } from "@domino/sdk/gen/domino/matchmaking/v1/matchmaking_service_pb.js";
import { playPractice } from "@domino/sdk/client/practice.js";
import { reasonOf } from "@domino/sdk/client/retry.js";
import { randomHex } from "@domino/sdk/client/session.js";

const { values: args } = parseArgs({
  options: {
    match: { type: "string", default: process.env.DOMINO_MATCH_ADDRESS ?? "127.0.0.1:50051" },
    matchmaking: { type: "string", default: process.env.DOMINO_MATCHMAKING_ADDRESS ?? "127.0.0.1:50052" },
    accounts: { type: "string", default: process.env.DOMINO_ACCOUNT_ADDRESS ?? "127.0.0.1:50053" },
    "shortest-target": { type: "boolean", default: false },
    name: { type: "string", default: `Node ${randomHex(3)}` },
  },
});

function transportTo(address: string) {
  return createGrpcTransport({ baseUrl: address.includes("://") ? address : `http://${address}` });
}

try {
  const summary = await playPractice({
    accounts: createClient(AccountService, transportTo(args.accounts)),
    matchmaking: createClient(MatchmakingService, transportTo(args.matchmaking)),
    match: createClient(MatchService, transportTo(args.match)),
  }, {
    displayName: args.name,
    shortestTarget: args["shortest-target"],
    onStatus: (text) => console.error(text),
    onRetry: ({ reason, delayMs }) => console.error(`calling again in ${delayMs} ms: ${reason}`),
  });
  console.log(JSON.stringify(summary, null, 2));
} catch (e) {
  const error = ConnectError.from(e);
  console.error(`failed: ${Code[error.code]} ${error.rawMessage}${reasonOf(error) ? ` (${reasonOf(error)})` : ""}`);
  process.exitCode = 1;
}
