// A watcher of live updates written as docs/api.md ("Live updates") tells a frontend to
// write one: a raw WebSocket (the ws package; Node 20 has no global WebSocket) on the
// server's real-time endpoint with the subprotocols aws-appsync-event-ws and
// header-<base64url of the printed authorization>, connection_init, then a subscribe with
// that authorization to the liveChannel that event(id) answers through GraphQL.
//
// Each admin mutation of "What is pushed" brings its message within 2 s, with a version one
// above the last, equal to event(id).liveVersion read after it, and the content the table
// describes; every message passes docs/live-message.schema.json (Ajv, JSON Schema 2020-12).
// A rename, a card edit, a start moved and renamePlayer bring nothing within QUIET_MS, and
// the next mutation's message then does arrive. Each message's delay (its receipt − the
// mutation's answer, 0 when it came first) is printed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import WebSocket from 'ws';
import { admin, apolloManifest, createEvent, demoPlayer, renamePlayer, server, updateEvent } from './harness.mjs';

// A message must arrive within DELIVERY_MS of its mutation's answer; a mutation that
// publishes nothing must bring no message within QUIET_MS (the server publishes before it
// answers, so a message it sent would be on the socket by then).
const DELIVERY_MS = 2000;
const QUIET_MS = 300;

const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');

// strictTypes off: the kinds' subschemas take "type": "object" from the root, as JSON Schema
// allows; Ajv's strict mode would warn of each.
const validate = new Ajv2020({ allErrors: true, strictTypes: false }).compile(
  JSON.parse(read('docs/live-message.schema.json')),
);

// frontend sends one of the frontend's documents as Apollo's manifest holds it (its text
// with its id: trusted with the builtin manifest, and run as it is without one) and
// returns its data; an error fails the test.
const manifest = Object.fromEntries(apolloManifest.operations.map((op) => [op.name, op]));
async function frontend(name, variables, token) {
  const { id, body } = manifest[name];
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(server.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: body, variables, extensions: { persistedQuery: { version: 1, sha256Hash: id } } }),
  });
  const answer = await res.json();
  assert.equal(answer.errors, undefined, `${name}: ${JSON.stringify(answer.errors)}`);
  return answer.data;
}

// liveOf reads event(id) signed out, as the card screen does: its liveChannel and
// liveVersion.
async function liveOf(id) {
  const { event } = await frontend('EventCard', { id });
  return { channel: event.liveChannel, version: event.liveVersion };
}

// Watcher is one socket opened as docs/api.md opens it. Every frame but ka is queued with
// the time it was received.
class Watcher {
  #frames = [];
  #wake = null;

  constructor({ url, auth }) {
    const header = btoa(JSON.stringify(auth)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    this.ws = new WebSocket(url, ['aws-appsync-event-ws', `header-${header}`]);
    this.opened = new Promise((resolve, reject) => {
      this.ws.onopen = resolve;
      this.ws.onerror = reject;
    });
    this.closed = new Promise((resolve) => {
      this.ws.onclose = resolve;
    });
    this.ws.onmessage = ({ data }) => {
      const frame = JSON.parse(data);
      if (frame.type === 'ka') return;
      this.#frames.push({ frame, at: performance.now() });
      this.#wake?.();
    };
  }

  send(message) {
    this.ws.send(JSON.stringify(message));
  }

  // next resolves to the next frame and its receipt time ({frame, at}), or to null when
  // none comes within ms.
  next(ms) {
    if (this.#frames.length > 0) return Promise.resolve(this.#frames.shift());
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = null;
        resolve(null);
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = null;
        resolve(this.#frames.shift());
      };
    });
  }

  // reply returns the next frame, which must come within 5 s.
  async reply() {
    const got = await this.next(5000);
    assert.ok(got, 'no answer from the server within 5 s');
    return got.frame;
  }

  async close() {
    this.ws.close();
    await this.closed;
  }
}

describe('live updates: a raw WebSocket watcher', () => {
  const watcher = new Watcher(server.realtime);
  // One subscription per event: its channel, subscription id and the last version received.
  const subs = {};
  // What each published message looked like: for the delays printed at the end.
  const received = [];

  // subscribe subscribes the watcher to event id's liveChannel, read through GraphQL.
  async function subscribe(id) {
    const live = await liveOf(id);
    assert.ok(live.channel, `event(${id}).liveChannel is null: push is off`);
    const sub = { event: id, channel: live.channel, id: crypto.randomUUID(), version: live.version };
    watcher.send({ type: 'subscribe', id: sub.id, channel: sub.channel, authorization: server.realtime.auth });
    assert.deepEqual(await watcher.reply(), { type: 'subscribe_success', id: sub.id });
    subs[id] = sub;
    return sub;
  }

  // pushed runs mutation and returns the message it brought: on the event's subscription,
  // within DELIVERY_MS, valid against the schema, of the kind wanted and the next version,
  // which event(id).liveVersion then answers too.
  async function pushed(t, eventId, kind, mutation) {
    const sub = subs[eventId];
    await mutation();
    const answered = performance.now();
    const got = await watcher.next(DELIVERY_MS);
    assert.ok(got, `no message within ${DELIVERY_MS} ms of the answer`);
    const delay = Math.max(0, got.at - answered);
    const { frame } = got;
    assert.equal(frame.type, 'data', `frame ${JSON.stringify(frame)}`);
    assert.equal(frame.id, sub.id, 'the data of another subscription');
    assert.equal(typeof frame.event, 'string', 'the event is a JSON string');
    assert.ok(Buffer.byteLength(frame.event) <= 5000, `${Buffer.byteLength(frame.event)} bytes`);
    const message = JSON.parse(frame.event);
    assert.ok(validate(message), `${frame.event} fails the schema: ${JSON.stringify(validate.errors)}`);
    assert.equal(message.eventId, eventId);
    assert.equal(message.kind, kind);
    assert.equal(message.version, sub.version + 1, 'the version grows by one');
    sub.version = message.version;
    const live = await liveOf(eventId);
    assert.equal(live.version, message.version, 'event(id).liveVersion read after it');
    received.push({ kind, version: message.version, delay });
    t.diagnostic(`${frame.event} after ${delay.toFixed(1)} ms`);
    return message;
  }

  // silent runs mutation and fails if any message comes within QUIET_MS of its answer.
  async function silent(t, mutation) {
    await mutation();
    const got = await watcher.next(QUIET_MS);
    assert.equal(got, null, `a message after a mutation that publishes nothing: ${JSON.stringify(got?.frame)}`);
    t.diagnostic(`no message within ${QUIET_MS} ms`);
  }

  // The leaderboard's first 10 rows as a signed-out reader reads them, in a message's shape.
  async function topTen(id) {
    const { event } = await frontend('ScoredEvent', { id, first: 10 });
    return event.leaderboard.edges.map(({ node }) => ({
      userId: node.user.id,
      name: node.user.name,
      points: node.points,
      rank: node.rank,
      place: node.place,
    }));
  }

  before(async () => {
    await watcher.opened;
    assert.equal(watcher.ws.protocol, 'aws-appsync-event-ws', 'the subprotocol the server selected');
    watcher.send({ type: 'connection_init' });
    const ack = await watcher.reply();
    assert.equal(ack.type, 'connection_ack', `after connection_init: ${JSON.stringify(ack)}`);
    assert.ok(ack.connectionTimeoutMs > 0, 'connection_ack has connectionTimeoutMs');
  });

  after(async () => {
    await watcher.close();
    if (received.length === 0) return;
    const delays = received.map((r) => r.delay);
    console.log(
      `live messages received (kind version: delay after the mutation's answer):\n` +
        received.map((r) => `  ${r.kind} v${r.version}: ${r.delay.toFixed(1)} ms`).join('\n') +
        `\n  ${delays.length} messages, max ${Math.max(...delays).toFixed(1)} ms`,
    );
  });

  test('the schema check refuses what no message may be', async (t) => {
    const eventId = '2026-12-01-watcher-lock';
    const row = { userId: 'sam', name: 'Sam', points: 10, rank: 1, place: 1 };
    const scoring = (leaderboard) => ({
      eventId, kind: 'SCORING', version: 2, state: 'SCORED', scoredMatches: 1, leaderboard,
    });
    const cases = {
      'the tie-breaker answer in a TIEBREAKER message': { eventId, kind: 'TIEBREAKER', version: 3, answer: 100 },
      'a RESULT without the state': { eventId, kind: 'RESULT', version: 1, matchId: crypto.randomUUID(), result: null },
      'version 0': { eventId, kind: 'STATE', version: 0, state: 'BROADCAST' },
      '11 leaderboard rows': scoring(Array(11).fill(row)),
      'a row without place': scoring([{ ...row, place: undefined }]),
    };
    assert.ok(validate(scoring(Array(10).fill(row))), `10 rows: ${JSON.stringify(validate.errors)}`);
    for (const [name, message] of Object.entries(cases)) {
      await t.test(name, () => assert.equal(validate(JSON.parse(JSON.stringify(message))), false));
    }
  });

  test('updateEvent changing the state pushes STATE; a rename pushes nothing', async (t) => {
    const ev = await createEvent('Watcher Lock', 2);
    await subscribe(ev.id);
    await t.test('a rename: no message', (t) =>
      silent(t, () => updateEvent(ev.id, { name: 'Watcher Lock (renamed)' })),
    );
    await t.test('the state set to BROADCAST: STATE', async (t) => {
      const m = await pushed(t, ev.id, 'STATE', () => updateEvent(ev.id, { state: 'BROADCAST' }));
      assert.deepEqual(m, { eventId: ev.id, kind: 'STATE', version: 1, state: 'BROADCAST' });
    });
  });

  test('results, tie-breaker answers, scoring passes push; a card edit, a start moved, renamePlayer do not', async (t) => {
    // An event with a tie-breaker question, predicted alike by the demo player (guess 90)
    // and the admin (guess 130): equal points, and the answer (100) places them apart. It
    // starts in the last second of today (UTC) and is then moved to the day's first, which
    // has passed: locked by time, still stored UPCOMING, so the first result stores it
    // BROADCAST. A run in the day's last 5 s waits for the next day.
    const day = 86_400_000;
    const left = day - (Date.now() % day);
    if (left < 5000) await new Promise((resolve) => setTimeout(resolve, left));
    const today = Math.floor(Date.now() / day) * day;
    const start = new Date(today + day - 1000);
    const teams = (a, b) => [{ members: [a] }, { members: [b] }];
    const { createEvent: ev } = await admin(read('operations/admin-create-event.graphql'), {
      input: {
        name: 'Watcher Night',
        startsAt: start.toISOString(),
        tiebreaker: 'How many minutes will the main event last?',
        matches: [
          { name: 'Opener', points: 10, teams: teams('Will Ospreay', 'Kyle Fletcher') },
          { name: 'Main Event', points: 20, teams: teams('Hangman Page', 'Jon Moxley') },
        ],
      },
    });
    const [m1, m2] = ev.matches.map((m) => m.id);
    const picks = [m1, m2].map((matchId) => ({ matchId, team: 0 }));
    const adminId = (await admin(read('operations/register.graphql'), { name: 'Demo Admin' })).register.id;
    await frontend('SubmitPrediction', { eventId: ev.id, picks, tiebreaker: 90 }, server.player);
    await admin(read('operations/submit-prediction.graphql'), { eventId: ev.id, picks, tiebreaker: 130 });
    await subscribe(ev.id);

    const setResult = (matchId, result) => () =>
      admin(read('operations/admin-set-result.graphql'), { eventId: ev.id, matchId, result });
    const setAnswer = (answer) => () =>
      admin(read('operations/admin-set-tiebreaker-answer.graphql'), { eventId: ev.id, answer });
    // One scoreEvent call: it must complete the pass (two predictions fit in one).
    const scoreEvent = (final) => async () => {
      const { scoreEvent } = await admin(read('operations/admin-score-event.graphql'), { eventId: ev.id });
      assert.deepEqual({ complete: scoreEvent.complete, final: scoreEvent.final }, { complete: true, final });
    };
    const win0 = { outcome: 'WIN', winner: 0 };
    // result is a RESULT message of this event but its result.
    const result = (version, matchId) => ({ eventId: ev.id, kind: 'RESULT', version, matchId, state: 'BROADCAST' });

    const updateMatch =
      'mutation($e: ID!, $m: ID!, $in: MatchUpdateInput!) { updateMatch(eventId: $e, matchId: $m, input: $in) { id } }';
    await t.test('a card edit: no message', (t) =>
      silent(t, () => admin(updateMatch, { e: ev.id, m: m2, in: { name: 'Main Event (No DQ)' } })),
    );
    await t.test('a start moved earlier, into the past: no message', (t) =>
      silent(t, () => updateEvent(ev.id, { startsAt: new Date(today).toISOString() })),
    );
    await t.test('setResult setting the first result: RESULT, the event BROADCAST', async (t) => {
      const m = await pushed(t, ev.id, 'RESULT', setResult(m1, win0));
      assert.deepEqual(m, { ...result(1, m1), result: win0 });
    });
    await t.test('renamePlayer: no message', (t) => silent(t, () => renamePlayer(adminId, 'Watcher Admin')));
    await t.test('setResult clearing a result: RESULT with a null result', async (t) => {
      const m = await pushed(t, ev.id, 'RESULT', setResult(m1, null));
      assert.deepEqual(m, { ...result(2, m1), result: null });
    });
    await t.test('setTiebreakerAnswer setting the answer: TIEBREAKER without it', async (t) => {
      const m = await pushed(t, ev.id, 'TIEBREAKER', setAnswer(100));
      assert.deepEqual(m, { eventId: ev.id, kind: 'TIEBREAKER', version: 3 });
    });
    await t.test('setTiebreakerAnswer clearing the answer: TIEBREAKER', async (t) => {
      const m = await pushed(t, ev.id, 'TIEBREAKER', setAnswer(null));
      assert.deepEqual(m, { eventId: ev.id, kind: 'TIEBREAKER', version: 4 });
    });
    await t.test('setResult setting a result again: RESULT', async (t) => {
      const m = await pushed(t, ev.id, 'RESULT', setResult(m1, win0));
      assert.deepEqual(m, { ...result(5, m1), result: win0 });
    });
    await t.test('scoreEvent completing a live pass: SCORING with the top rows', async (t) => {
      const m = await pushed(t, ev.id, 'SCORING', scoreEvent(false));
      assert.equal(m.state, 'BROADCAST');
      assert.equal(m.scoredMatches, 1);
      assert.deepEqual(m.leaderboard, await topTen(ev.id), 'the leaderboard read after it');
      const admins = m.leaderboard.find((r) => r.userId === adminId);
      assert.deepEqual(admins, { userId: adminId, name: 'Watcher Admin', points: 10, rank: 1, place: 1 });
      assert.equal(m.leaderboard.length, 2);
    });
    await t.test('setTiebreakerAnswer setting the answer before the final pass: TIEBREAKER', async (t) => {
      const m = await pushed(t, ev.id, 'TIEBREAKER', setAnswer(100));
      assert.deepEqual(m, { eventId: ev.id, kind: 'TIEBREAKER', version: 7 });
    });
    await t.test('setResult on the last match: RESULT', async (t) => {
      const m = await pushed(t, ev.id, 'RESULT', setResult(m2, win0));
      assert.deepEqual(m, { ...result(8, m2), result: win0 });
    });
    await t.test('scoreEvent completing the final pass: SCORING, SCORED, placed by the answer', async (t) => {
      const m = await pushed(t, ev.id, 'SCORING', scoreEvent(true));
      assert.equal(m.state, 'SCORED');
      assert.equal(m.scoredMatches, 2);
      assert.deepEqual(m.leaderboard, await topTen(ev.id), 'the leaderboard read after it');
      assert.deepEqual(
        m.leaderboard.map(({ userId, points, rank, place }) => ({ userId, points, rank, place })),
        [
          { userId: demoPlayer, points: 30, rank: 1, place: 1 },
          { userId: adminId, points: 30, rank: 1, place: 2 },
        ],
      );
    });
    assert.equal((await liveOf(ev.id)).version, 9, 'event(id).liveVersion after nine messages');
  });
});
