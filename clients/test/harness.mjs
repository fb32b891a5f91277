// What both client tests share: the server they run against (local/clients_test.go starts
// it and passes it in the environment), the frontend's documents, an admin who sends any
// document with fetch, and the warnings the clients print.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { afterEach } from 'node:test';
import { parse } from 'graphql';

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the client tests with make clients`);
  return v;
}

export const server = {
  url: `${need('PICKEM_URL')}/graphql`,
  player: need('PICKEM_PLAYER_TOKEN'),
  admin: need('PICKEM_ADMIN_TOKEN'),
  // "builtin": the server runs only the documents of its manifests; "off": any document.
  trusted: need('PICKEM_TRUSTED_DOCUMENTS') !== 'off',
  // The real-time endpoint and the authorization the server's banner prints
  // ({"host": …, "x-api-key": …}).
  realtime: { url: need('PICKEM_REALTIME_URL'), auth: JSON.parse(need('PICKEM_REALTIME_AUTH')) },
};

export const demoPlayer = 'demo-player';
// Another player of the demo data: in the season's standings, on the scored events'
// leaderboards and in the demo player's league.
export const otherPlayer = 'sam';

const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');

// The frontend's documents (operations/*.graphql but admin-*) by operation name, as the
// files hold them: what an Apollo app imports.
export const operations = Object.fromEntries(
  readdirSync(new URL('operations/', root))
    .filter((f) => f.endsWith('.graphql') && !f.startsWith('admin-'))
    .map((f) => {
      const doc = parse(read(`operations/${f}`));
      return [doc.definitions[0].name.value, doc];
    }),
);

export const apolloManifest = JSON.parse(read('operations/manifests/apollo.json'));

// GraphQL Codegen's client preset documents by operation name: its printed text (what
// operations/manifests/codegen.json holds) parsed, with the hash the preset puts on each
// (__meta__.hash), as the documents of its generated graphql.ts are.
export const codegenDocuments = Object.fromEntries(
  Object.entries(JSON.parse(read('operations/manifests/codegen.json'))).map(([hash, text]) => {
    const doc = parse(text);
    doc.__meta__ = { hash };
    return [doc.definitions[0].name.value, doc];
  }),
);

// admin sends query with the admin token (admins may send any document) and returns its
// data; an error fails the test.
export async function admin(query, variables) {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.admin}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  assert.equal(body.errors, undefined, `admin ${query.slice(0, 40)}…: ${JSON.stringify(body.errors)}`);
  return body.data;
}

// createEvent creates an event of two matches starting in days days, at noon UTC, and
// returns it (id, matches' ids).
export async function createEvent(name, days) {
  const start = new Date();
  start.setUTCDate(start.getUTCDate() + days);
  start.setUTCHours(12, 0, 0, 0);
  const teams = (a, b) => [{ members: [a] }, { members: [b] }];
  const { createEvent } = await admin(read('operations/admin-create-event.graphql'), {
    input: {
      name,
      startsAt: start.toISOString(),
      matches: [
        { name: 'Opener', points: 10, teams: teams('Will Ospreay', 'Kyle Fletcher') },
        { name: 'Main Event', points: 20, teams: teams('Hangman Page', 'Jon Moxley') },
      ],
    },
  });
  return createEvent;
}

export const updateEvent = (id, input) =>
  admin(
    'mutation UpdateEvent($id: ID!, $input: EventUpdateInput!) { updateEvent(id: $id, input: $input) { id name startsAt state } }',
    { id, input },
  );

export const setResult = (eventId, matchId, winner) =>
  admin(read('operations/admin-set-result.graphql'), {
    eventId,
    matchId,
    result: { outcome: 'WIN', winner },
  });

// scoreEvent calls scoreEvent until its pass is complete.
export async function scoreEvent(eventId) {
  for (let i = 0; i < 10; i++) {
    const { scoreEvent } = await admin(read('operations/admin-score-event.graphql'), { eventId });
    if (scoreEvent.complete) return scoreEvent;
  }
  assert.fail(`scoreEvent ${eventId}: not complete after 10 calls`);
}

export const renamePlayer = (id, name) =>
  admin(read('operations/admin-rename-player.graphql'), { id, name });

// Every request made with fetch (the clients' and admin's): method, URL, body and the
// answer's Cache-Control.
export const requests = [];
const fetchOnce = globalThis.fetch;
globalThis.fetch = async (input, init = {}) => {
  const res = await fetchOnce(input, init);
  requests.push({
    method: init.method ?? 'GET',
    url: new URL(String(input)),
    body: init.body,
    cacheControl: res.headers.get('cache-control'),
  });
  return res;
};

// Every console.warn and console.error is kept (and still printed): a client's cache warns
// there of what it cannot store or merge. Each test fails if it printed any.
const printed = [];
for (const level of ['warn', 'error']) {
  const original = console[level];
  console[level] = (...args) => {
    printed.push(`console.${level}: ${args.map(String).join(' ')}`);
    original(...args);
  };
}
afterEach(() => {
  const lines = printed.splice(0);
  assert.deepEqual(lines, [], 'the client printed warnings');
});
