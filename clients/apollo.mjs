// Apollo Client 4 for the Pick'Em API, as docs/api.md gives it (the docs quote this file and
// clients/test/docs.test.mjs keeps them equal).
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { relayStylePagination } from '@apollo/client/utilities';
import { generatePersistedQueryIdsFromManifest } from '@apollo/persisted-query-lists';

// Lists of objects stored inside their parent: the latest answer replaces them whole.
const replace = { merge: false };

export const typePolicies = {
  Query: {
    fields: {
      events: relayStylePagination(['season']),
      standings: relayStylePagination(['season']),
    },
  },
  Event: { fields: { leaderboard: relayStylePagination(), matches: replace } },
  Match: { fields: { teams: replace, championships: replace, pickCounts: replace } },
  Team: { fields: { members: replace } },
  Prediction: { fields: { picks: replace } },
  User: {
    fields: { predictions: relayStylePagination(), standings: replace, leagues: replace },
  },
  League: { fields: { standings: relayStylePagination(['season']) } },
  // An audit entry's actor is the admin as they were named then, not the player today.
  UserRef: { keyFields: false },
};

// createClient returns a client of the API at uri. token is the player's ID token (none:
// signed out). loadManifest returns the manifest of @apollo/generate-persisted-query-manifest;
// without it the client sends the documents' text (a server without trusted documents).
export function createClient({ uri, token, loadManifest }) {
  const http = new HttpLink({
    uri,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const link = loadManifest
    ? new PersistedQueryLink({
        ...generatePersistedQueryIdsFromManifest({ loadManifest }),
        useGETForHashedQueries: true,
      }).concat(http)
    : http;
  return new ApolloClient({ link, cache: new InMemoryCache({ typePolicies }) });
}
