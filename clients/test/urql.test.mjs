// urql with Graphcache and the configuration of clients/urql.mjs against the server the
// environment names (make clients), the documents as GraphQL Codegen's client preset gives
// them (each with its hash).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createClient } from '../urql.mjs';
import { admin, codegenDocuments, server } from './harness.mjs';
import { clientTests } from './scenarios.mjs';

// Signed in, the persisted exchange sends each operation by Codegen's id (queries with
// GET); with trusted documents off, as its text.
const persisted = server.trusted;
const player = createClient({ url: server.url, token: server.player, persisted });
const anonymous = createClient({ url: server.url, persisted });
const untrusted = createClient({ url: server.url, token: server.player, persisted: false });

const document = (op) => (typeof op === 'string' ? codegenDocuments[op] : op);

const urql = {
  name: 'urql',
  player,
  anonymous,
  untrusted,
  query: (client, op, variables, policy) =>
    client
      .query(document(op), variables, { requestPolicy: policy === 'cache' ? 'cache-only' : 'network-only' })
      .toPromise(),
  mutate: (client, op, variables) => client.mutation(document(op), variables).toPromise(),
  codes: (error) => error.graphQLErrors.map((e) => e.extensions?.code),
};

describe('urql with Graphcache', () => {
  test('runs in development mode (Graphcache warns)', () => {
    assert.notEqual(process.env.NODE_ENV, 'production');
  });

  const demo = clientTests(urql);

  test('relayPagination merges the pages of a connection', async (t) => {
    await t.test('events', async () => {
      const { events } = await admin('{ events(first: 100) { edges { node { id } } } }');
      const all = events.edges.map((e) => e.node.id);
      assert.ok(all.length > 4, `${all.length} events: want more than two pages`);
      const merged = await fetchAll('EventList', {}, (d) => d.events);
      assert.deepEqual(merged.map((e) => e.node.id), all);
    });
    await t.test('an event leaderboard', async () => {
      const q = 'query($id: ID!) { event(id: $id) { leaderboard(first: 100) { edges { node { user { id } } } } } }';
      const { event } = await admin(q, { id: demo.scoredEvent });
      const all = event.leaderboard.edges.map((e) => e.node.user.id);
      assert.ok(all.length > 2, `${all.length} rows: want more than one page`);
      const merged = await fetchAll('ScoredEvent', { id: demo.scoredEvent }, (d) => d.event.leaderboard);
      assert.deepEqual(merged.map((e) => e.node.user.id), all);
    });
  });
});

// fetchAll reads the pages of a connection (at) two rows at a time on a client of its own
// (an empty cache), each with the cursor of the one before, and returns the edges of the
// last answer: Graphcache has merged them all.
async function fetchAll(op, variables, at) {
  const client = createClient({ url: server.url, token: server.player, persisted });
  let after;
  for (let pages = 1; ; pages++) {
    assert.ok(pages < 50, 'more than 50 pages');
    const { data, error } = await client
      .query(codegenDocuments[op], { ...variables, first: 2, after }, { requestPolicy: 'network-only' })
      .toPromise();
    assert.equal(error, undefined);
    const connection = at(data);
    if (!connection.pageInfo.hasNextPage) return connection.edges;
    after = connection.pageInfo.endCursor;
  }
}
