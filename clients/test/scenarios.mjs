// The behaviours every client must show, written once over an adapter per client:
//
//   name                  the client's name (also in the fixtures' names: the two clients
//                         run one after the other against one server)
//   player, anonymous     clients (with the configuration of clients/*.mjs) signed in as
//                         the demo player, and signed out
//   untrusted             a client signed in as the demo player that sends documents' text
//   query(client, op, variables, policy)   op: an operation's name or a parsed document;
//                         policy 'network' or 'cache' (cache only)
//   mutate(client, op, variables)
//   codes(error)          the extensions.code of each GraphQL error in the client's error
//
// query and mutate resolve to { data, error } with the client's own error object. No test
// writes to a cache: what a screen shows after a change comes from the clients' caches as
// configured.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { parse } from 'graphql';
import {
  admin,
  createEvent,
  demoPlayer,
  operations,
  otherPlayer,
  renamePlayer,
  requests,
  scoreEvent,
  server,
  setResult,
  updateEvent,
} from './harness.mjs';

export function clientTests(c) {
  const ok = async (p) => {
    const { data, error } = await p;
    assert.equal(error, undefined, `unexpected error: ${error}`);
    assert.ok(data, 'no data');
    return data;
  };
  const read = (op, variables, policy = 'network') => ok(c.query(c.player, op, variables, policy));
  const cached = (op, variables) => read(op, variables, 'cache');
  const mutate = (op, variables) => ok(c.mutate(c.player, op, variables));
  const row = (connection, userId) => {
    const edge = connection.edges.find((e) => e.node.user.id === userId);
    assert.ok(edge, `no row of ${userId}`);
    return edge.node;
  };
  const picksOf = (prediction) => prediction.picks.map(({ matchId, team }) => ({ matchId, team }));
  const profileRow = (profile, eventId) => {
    const edge = profile.user.predictions.edges.find((e) => e.node.event.id === eventId);
    assert.ok(edge, `no profile row of ${eventId}`);
    return edge.node;
  };

  // The demo data: a scored event, the upcoming one, the season, the demo player's league.
  const demo = {};
  // The variables of the screens with a connection, a page size (first) included:
  // Graphcache's relayPagination answers null for a connection read without one.
  const vars = {
    events: () => ({ first: 20 }),
    standings: () => ({ season: demo.season, first: 50 }),
    league: () => ({ id: demo.league, season: demo.season, first: 50 }),
    scoredEvent: (id) => ({ id, first: 50 }),
    profile: (id) => ({ id, first: 20 }),
  };
  before(async () => {
    const { events } = await admin('{ events(first: 100) { edges { node { id state season } } } }');
    const nodes = events.edges.map((e) => e.node);
    // The oldest: a client's own events, scored by the tests, are newer.
    const scored = nodes.findLast((e) => e.state === 'SCORED');
    demo.scoredEvent = scored.id;
    demo.season = scored.season;
    demo.upcomingEvent = nodes.find((e) => e.state === 'UPCOMING').id;
    const { user } = await admin('query($id: ID!) { user(id: $id) { leagues { id name } } }', { id: demoPlayer });
    demo.league = user.leagues.find((l) => l.name === 'Demo League').id;
  });

  test('every frontend document answers', async (t) => {
    const answered = new Set();
    const step = (op, fn) =>
      t.test(op, async () => {
        await fn();
        answered.add(op);
      });
    await step('EventList', () => read('EventList', vars.events()));
    await step('EventCard', () => read('EventCard', { id: demo.scoredEvent }));
    await step('ScoredEvent', () => read('ScoredEvent', vars.scoredEvent(demo.scoredEvent)));
    await step('Standings', () => read('Standings', vars.standings()));
    await step('Profile', () => read('Profile', vars.profile(demoPlayer)));
    await step('Me', () => read('Me'));
    await step('MyLeagues', () => read('MyLeagues'));
    await step('LeagueStandings', () => read('LeagueStandings', vars.league()));
    let league, inviteCode;
    await step('CreateLeague', async () => {
      ({ id: league } = (await mutate('CreateLeague', { name: `League of ${c.name}` })).createLeague);
    });
    await step('RotateInviteCode', async () => {
      ({ inviteCode } = (await mutate('RotateInviteCode', { id: league })).rotateInviteCode);
    });
    await step('LeagueByInvite', async () => {
      const { leagueByInvite } = await read('LeagueByInvite', { inviteCode });
      assert.equal(leagueByInvite.id, league);
    });
    await step('JoinLeague', () => mutate('JoinLeague', { inviteCode }));
    await step('LeaveLeague', () => mutate('LeaveLeague', { id: league }));
    await step('Register', () => mutate('Register', { name: 'Demo Player' }));
    await step('SubmitPrediction', async () => {
      const { event } = await read('EventCard', { id: demo.upcomingEvent });
      const picks = event.matches.map((m) => ({ matchId: m.id, team: 0 }));
      await mutate('SubmitPrediction', { eventId: demo.upcomingEvent, picks });
    });
    assert.deepEqual([...answered].sort(), Object.keys(operations).sort());
  });

  test(
    'queries are sent by id with GET (signed out: cacheable), mutations by id with POST',
    { skip: !server.trusted && 'the clients send their documents\' text (trusted documents off)' },
    async () => {
      requests.length = 0;
      await ok(c.query(c.anonymous, 'EventList', vars.events(), 'network'));
      assert.equal(requests.length, 1, 'one request');
      const [get] = requests;
      assert.equal(get.method, 'GET');
      assert.equal(get.url.searchParams.get('query'), null, 'the text was sent');
      assert.ok(JSON.parse(get.url.searchParams.get('extensions')).persistedQuery.sha256Hash, 'no id');
      assert.match(get.cacheControl, /^public, max-age=\d+$/);

      requests.length = 0;
      await mutate('Register', { name: 'Demo Player' });
      assert.equal(requests.length, 1, 'one request');
      const [post] = requests;
      assert.equal(post.method, 'POST');
      const body = JSON.parse(post.body);
      assert.equal(body.query, undefined, 'the text was sent');
      assert.ok(body.extensions.persistedQuery.sha256Hash, 'no id');
    },
  );

  test('register: cached standings, leaderboard, league and profile rows show the new name', async () => {
    await read('Standings', vars.standings());
    await read('ScoredEvent', vars.scoredEvent(demo.scoredEvent));
    await read('LeagueStandings', vars.league());
    await read('Profile', vars.profile(demoPlayer));
    const name = `Demo Player of ${c.name}`;
    await mutate('Register', { name });

    const { standings } = await cached('Standings', vars.standings());
    assert.equal(row(standings, demoPlayer).user.name, name, 'standings row');
    const { event } = await cached('ScoredEvent', vars.scoredEvent(demo.scoredEvent));
    assert.equal(row(event.leaderboard, demoPlayer).user.name, name, 'leaderboard row');
    const { league } = await cached('LeagueStandings', vars.league());
    assert.equal(row(league.standings, demoPlayer).user.name, name, 'league row');
    assert.equal(league.owner.name, name, 'league owner');
    const { user } = await cached('Profile', vars.profile(demoPlayer));
    assert.equal(user.name, name, 'profile');
  });

  test("renamePlayer: one read of the player's profile renames every cached row", async () => {
    await read('Standings', vars.standings());
    await read('ScoredEvent', vars.scoredEvent(demo.scoredEvent));
    await read('LeagueStandings', vars.league());
    const name = `Sam of ${c.name}`;
    await renamePlayer(otherPlayer, name);
    await read('Profile', vars.profile(otherPlayer));

    const { standings } = await cached('Standings', vars.standings());
    assert.equal(row(standings, otherPlayer).user.name, name, 'standings row');
    const { event } = await cached('ScoredEvent', vars.scoredEvent(demo.scoredEvent));
    assert.equal(row(event.leaderboard, otherPlayer).user.name, name, 'leaderboard row');
    const { league } = await cached('LeagueStandings', vars.league());
    assert.equal(row(league.standings, otherPlayer).user.name, name, 'league row');
  });

  // An event of this client's own, predicted by the demo player: moved and locked by
  // updateEvent, then scored.
  const night = {};
  test('updateEvent: one read of the card updates the cached list and profile rows', async () => {
    const ev = await createEvent(`${c.name} Night`, 3);
    night.id = ev.id;
    night.matches = ev.matches.map((m) => m.id);
    await read('EventCard', { id: night.id });
    await mutate('SubmitPrediction', {
      eventId: night.id,
      picks: night.matches.map((matchId) => ({ matchId, team: 0 })),
    });
    await read('EventList', vars.events());
    await read('Profile', vars.profile(demoPlayer));

    const startsAt = new Date(Date.parse(ev.startsAt) + 3600_000).toISOString().replace('.000Z', 'Z');
    const name = `${c.name} Night (moved)`;
    await updateEvent(night.id, { name, startsAt, state: 'BROADCAST' });
    await read('EventCard', { id: night.id });

    const { events } = await cached('EventList', vars.events());
    const listed = events.edges.find((e) => e.node.id === night.id)?.node;
    assert.deepEqual(
      listed && { name: listed.name, startsAt: listed.startsAt, state: listed.state },
      { name, startsAt, state: 'BROADCAST' },
      'event list row',
    );
    const profile = await cached('Profile', vars.profile(demoPlayer));
    const { event } = profileRow(profile, night.id);
    assert.deepEqual({ name: event.name, startsAt: event.startsAt }, { name, startsAt }, 'profile row');
  });

  test('scoring: a prediction read again replaces the cached points everywhere shown', async () => {
    assert.ok(night.id, 'needs the event of the updateEvent test');
    await read('Profile', vars.profile(demoPlayer));
    await read('ScoredEvent', vars.scoredEvent(night.id));
    // The demo player picked team 0 everywhere: the opener (10 points) is won, the main
    // event (20) lost.
    await setResult(night.id, night.matches[0], 0);
    await setResult(night.id, night.matches[1], 1);
    await scoreEvent(night.id);

    const card = await read('EventCard', { id: night.id });
    assert.equal(card.prediction.points, 10, 'card');
    let profile = await cached('Profile', vars.profile(demoPlayer));
    assert.equal(profileRow(profile, night.id).points, 10, 'profile row after the card was read');

    // A corrected result, scored again: now read from the leaderboard.
    await setResult(night.id, night.matches[1], 0);
    await scoreEvent(night.id);
    const { event } = await read('ScoredEvent', vars.scoredEvent(night.id));
    assert.equal(row(event.leaderboard, demoPlayer).points, 30, 'leaderboard row');
    const { prediction } = await cached('EventCard', { id: night.id });
    assert.equal(prediction.points, 30, 'card after the leaderboard was read');
    profile = await cached('Profile', vars.profile(demoPlayer));
    assert.equal(profileRow(profile, night.id).points, 30, 'profile row after the leaderboard was read');
  });

  test('submitPrediction on a predicted event: the cached card shows the new picks', async () => {
    const ev = await createEvent(`${c.name} Cup`, 4);
    const picks = (team) => ev.matches.map((m) => ({ matchId: m.id, team }));
    await read('EventCard', { id: ev.id });
    await mutate('SubmitPrediction', { eventId: ev.id, picks: picks(0) });
    // After a first submit the card had no prediction to update: one refetch.
    const card = await read('EventCard', { id: ev.id });
    assert.deepEqual(picksOf(card.prediction), picks(0));

    await mutate('SubmitPrediction', { eventId: ev.id, picks: picks(1) });
    const { prediction } = await cached('EventCard', { id: ev.id });
    assert.deepEqual(picksOf(prediction), picks(1), 'cached card');
  });

  test('extensions.code reaches the client error', async (t) => {
    const cases = [
      ['BAD_USER_INPUT', 'a malformed event id', () => c.query(c.player, 'EventCard', { id: 'not an id' }, 'network')],
      ['UNAUTHENTICATED', 'picks signed out', () =>
        c.mutate(c.anonymous, 'SubmitPrediction', { eventId: demo.upcomingEvent, picks: [{ matchId: 'm', team: 0 }] })],
      ['FORBIDDEN', 'a league read signed out', () =>
        c.query(c.anonymous, 'LeagueStandings', vars.league(), 'network')],
    ];
    for (const [code, name, run] of cases) {
      await t.test(`${code}: ${name}`, async () => {
        const { error } = await run();
        assert.ok(error, 'no error');
        assert.ok(c.codes(error).includes(code), `codes ${JSON.stringify(c.codes(error))} in ${error}`);
      });
    }
  });

  test(
    'a document outside the manifest is refused with UNTRUSTED_DOCUMENT',
    { skip: !server.trusted && 'the server runs any document (trusted documents off)' },
    async () => {
      const outside = parse('query Outside($id: ID!) { event(id: $id) { id name } }');
      const { error } = await c.query(c.untrusted, outside, { id: demo.scoredEvent }, 'network');
      assert.ok(error, 'no error');
      assert.deepEqual(c.codes(error), ['UNTRUSTED_DOCUMENT']);
    },
  );

  return demo;
}
