// The floor of a Koa response on this machine: a bare Koa app (`koa` only, one middleware) sending fixed bytes with
// fixed headers, those of answers of the real server (bench/server.ts fetches them), whatever the request: one
// answer, or several in turn (the search's answers differ in size from query to query). One process.
// Usage: node [flags] --import tsx bench/bare-koa-server.ts <answers.json>; prints the port it listens on.
// answers.json: [{"status": 200, "headers": [["content-type", "application/json"], ...], "body": "<base64>"}, ...].
import fs from 'node:fs';
import Koa from 'koa';

interface FixedAnswer {
  status: number;
  headers: [string, string][];
  body: string;
}

const file = process.argv[2];
if (file === undefined) throw new Error('usage: bare-koa-server.ts <answers.json>');
const answers = (JSON.parse(fs.readFileSync(file, 'utf8')) as FixedAnswer[]).map((answer) => ({ ...answer, body: Buffer.from(answer.body, 'base64') }));
let next = 0;

const app = new Koa();
app.use((ctx) => {
  const answer = answers[next++ % answers.length]!;
  for (const [name, value] of answer.headers) ctx.set(name, value);
  ctx.status = answer.status;
  ctx.body = answer.body;
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
server.keepAliveTimeout = 5000; // as src/server.ts
process.on('SIGTERM', () => server.close(() => process.exit(0)));
