// docs/api.md quotes the client configurations the client tests run: each block after a
// "<!-- quote: clients/… -->" line must be that file (a module without its opening comment).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url);
const read = (path) => readFileSync(new URL(path, root), 'utf8');

// quoted returns the text docs/api.md should show of path.
function quoted(path) {
  let text = read(path);
  if (path.endsWith('.mjs')) text = text.replace(/^(\/\/.*\n)+/, '');
  return text.trimEnd();
}

test('docs/api.md quotes the client configurations as they are', async (t) => {
  const doc = read('docs/api.md');
  const quotes = [...doc.matchAll(/<!-- quote: (\S+) -->\n```\w*\n([\s\S]*?)\n```/g)];
  const paths = quotes.map((q) => q[1]);
  for (const want of ['clients/apollo.mjs', 'clients/urql.mjs']) {
    assert.ok(paths.includes(want), `docs/api.md does not quote ${want}`);
  }
  for (const [, path, block] of quotes) {
    await t.test(path, () => assert.equal(block, quoted(path), `docs/api.md's copy of ${path} differs: copy the file`));
  }
});
