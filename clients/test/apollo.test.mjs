// Apollo Client 4 with the configuration of clients/apollo.mjs against the server the
// environment names (make clients), the documents of operations/ as an app imports them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CombinedGraphQLErrors } from '@apollo/client';
import { __DEV__ } from '@apollo/client/utilities/environment';
import { createClient } from '../apollo.mjs';
import { admin, apolloManifest, operations, server } from './harness.mjs';
import { clientTests } from './scenarios.mjs';

// Signed in, the Apollo link sends each operation by its manifest id (queries with GET);
// with trusted documents off, as its text.
const loadManifest = server.trusted ? () => apolloManifest : undefined;
const player = createClient({ uri: server.url, token: server.player, loadManifest });
const anonymous = createClient({ uri: server.url, loadManifest });
const untrusted = createClient({ uri: server.url, token: server.player });

const document = (op) => (typeof op === 'string' ? operations[op] : op);

// settle turns the client's answer or rejection into { data, error }.
async function settle(promise) {
  try {
    const { data, error } = await promise;
    return { data, error };
  } catch (error) {
    return { data: undefined, error };
  }
}

const apollo = {
  name: 'Apollo',
  player,
  anonymous,
  untrusted,
  query: (client, op, variables, policy) =>
    settle(
      client.query({
        query: document(op),
        variables,
        fetchPolicy: policy === 'cache' ? 'cache-only' : 'network-only',
      }),
    ),
  mutate: (client, op, variables) => settle(client.mutate({ mutation: document(op), variables })),
  codes: (error) => (CombinedGraphQLErrors.is(error) ? error.errors.map((e) => e.extensions?.code) : []),
};

describe('Apollo Client', () => {
  test('runs in development mode (its cache warns)', () => {
    assert.equal(__DEV__, true, 'run node with --conditions=development');
  });

  const demo = clientTests(apollo);

  test('fetchMore merges the pages of a connection (relayStylePagination)', async (t) => {
    await t.test('events', async () => {
      const { events } = await admin('{ events(first: 100) { edges { node { id } } } }');
      const all = events.edges.map((e) => e.node.id);
      assert.ok(all.length > 4, `${all.length} events: want more than two pages`);
      const merged = await fetchAll(operations.EventList, { first: 2 }, (d) => d.events);
      assert.deepEqual(merged.map((e) => e.node.id), all);
    });
    await t.test('an event leaderboard', async () => {
      const q = 'query($id: ID!) { event(id: $id) { leaderboard(first: 100) { edges { node { user { id } } } } } }';
      const { event } = await admin(q, { id: demo.scoredEvent });
      const all = event.leaderboard.edges.map((e) => e.node.user.id);
      assert.ok(all.length > 2, `${all.length} rows: want more than one page`);
      const merged = await fetchAll(operations.ScoredEvent, { id: demo.scoredEvent, first: 2 }, (d) => d.event.leaderboard);
      assert.deepEqual(merged.map((e) => e.node.user.id), all);
    });
  });
});

// fetchAll watches query on a client of its own (an empty cache) and calls fetchMore with
// the last cursor until the last page; it returns the edges of the connection (at) as the
// cache then answers the first page's query: every page, merged.
async function fetchAll(query, variables, at) {
  const client = createClient({ uri: server.url, token: server.player, loadManifest });
  const watched = client.watchQuery({ query, variables });
  let subscription;
  const first = await new Promise((resolve, reject) => {
    subscription = watched.subscribe({
      next: (r) => r.dataState === 'complete' && resolve(r),
      error: reject,
    });
  });
  try {
    let page = at(first.data);
    for (let pages = 1; page.pageInfo.hasNextPage; pages++) {
      assert.ok(pages < 50, 'more than 50 pages');
      page = at((await watched.fetchMore({ variables: { after: page.pageInfo.endCursor } })).data);
    }
    const { data } = await client.query({ query, variables, fetchPolicy: 'cache-only' });
    return at(data).edges;
  } finally {
    subscription.unsubscribe();
  }
}
