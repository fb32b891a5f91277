// Browser check of the local server's playground (make e2e; local/e2e_test.go starts the
// server and runs this). In Debian's headless Chromium, with every request to a host other
// than this machine refused and recorded, it loads the playground, runs the default query
// signed out, then `{ me { id name } }` with the player token in GraphiQL's stored headers,
// and saves a screenshot. It prints a JSON report and exits 1 if anything went wrong.
//
//   node e2e/playground.mjs http://127.0.0.1:PORT/ PLAYER_TOKEN SCREENSHOT.png
import { chromium } from 'playwright-core';

const [base, token, screenshot] = process.argv.slice(2);
if (!base || !token || !screenshot) {
  console.error('usage: node e2e/playground.mjs BASE_URL PLAYER_TOKEN SCREENSHOT.png');
  process.exit(2);
}

const report = { external: [], consoleErrors: [], pageErrors: [], steps: [] };
const fail = (msg) => { report.failure = msg; };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  // Flags that keep Chromium from calling home on a machine with a closed network.
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if (u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.protocol === 'data:') {
      return route.continue();
    }
    report.external.push(u.href);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') report.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => report.pageErrors.push(String(e)));

  const run = async (label, want) => {
    await page.locator('.graphiql-execute-button').click();
    const response = page.locator('.graphiql-response');
    await response.getByText(want).first().waitFor({ timeout: 15000 });
    const text = (await response.innerText()).replace(/\s+/g, ' ').slice(0, 300);
    report.steps.push({ step: label, response: text });
  };

  await page.goto(base, { waitUntil: 'load' });
  await page.locator('.graphiql-container').waitFor({ timeout: 20000 });
  const hint = await page.locator('#signin').innerText();
  if (!hint.includes('admin token')) fail('sign-in hint missing: ' + hint);
  report.steps.push({ step: 'loaded', title: await page.title(), hint });

  await run('default query, signed out', '"events"');

  // Signed in: GraphiQL reads the query and the headers it stored (shouldPersistHeaders).
  await page.evaluate((tok) => {
    localStorage.setItem('graphiql:query', '{ me { id name } }');
    localStorage.setItem('graphiql:headers', JSON.stringify({ Authorization: 'Bearer ' + tok }));
  }, token);
  await page.reload({ waitUntil: 'load' });
  await page.locator('.graphiql-container').waitFor({ timeout: 20000 });
  await run('me, with the player token', 'demo-player');

  await page.screenshot({ path: screenshot });
} catch (e) {
  fail(String(e));
} finally {
  await browser.close();
}
if (report.external.length > 0) fail('requests to other hosts: ' + report.external.join(', '));
if (report.pageErrors.length > 0) fail('page errors: ' + report.pageErrors.join('; '));
console.log(JSON.stringify(report, null, 2));
process.exit(report.failure ? 1 : 0);
