// urql with Graphcache for the Pick'Em API, as docs/api.md gives it (the docs quote this file
// and clients/test/docs.test.mjs keeps them equal).
import { Client, fetchExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import { persistedExchange } from '@urql/exchange-persisted';

// Types without an id are stored inside their parent (PageInfo, *Connection and *Edge are,
// without saying so).
const embedded = () => null;

export const graphcache = {
  keys: {
    Team: embedded,
    MatchResult: embedded,
    Pick: embedded,
    Standing: embedded,
    Tiebreaker: embedded,
    ScoreReport: embedded,
    AuditEntry: embedded,
    // An audit entry's actor is the admin as they were named then, not the player today.
    UserRef: embedded,
  },
  resolvers: {
    Query: { events: relayPagination(), standings: relayPagination() },
    Event: { leaderboard: relayPagination() },
    User: { predictions: relayPagination() },
    League: { standings: relayPagination() },
  },
};

// createClient returns a client of the API at url. token is the player's ID token (none:
// signed out). With persisted, every operation is sent as the hash GraphQL Codegen's client
// preset gave its document (document.__meta__.hash, "sha256:<hex>"), queries with GET;
// without, as its text (a server without trusted documents).
export function createClient({ url, token, persisted = true }) {
  return new Client({
    url,
    fetchOptions: () => (token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    exchanges: [
      cacheExchange(graphcache),
      ...(persisted
        ? [
            persistedExchange({
              enforcePersistedQueries: true,
              enableForMutation: true,
              generateHash: (_, document) => Promise.resolve(document.__meta__.hash),
            }),
          ]
        : []),
      fetchExchange,
    ],
  });
}
