// The peer a user would otherwise pick for a contract-first server on Koa: openapi-backend used as its README shows
// (`api.register` handlers, `app.use(bodyparser())`, `app.use((ctx) => api.handleRequest(ctx.request, ctx))`), over
// the same openapi.yaml, validating requests (the library's default) and responses (the README's
// `postResponseHandler` with `c.api.validateResponse`), as the server does with RESPONSE_VALIDATION on, and the
// string formats the server checks (ajv-formats through the library's `customizeAjv`, where it would otherwise
// warn of each format it ignores). `getJumpbar`
// answers with the object the server answered `GET /api/jumpbar?mode=tenants` with, and the same headers, so that
// the bytes on the wire are the same; the caller may do everything, as the server without sign-in allows.
// A process of its own. Usage: node --import tsx bench/openapi-backend-koa.ts <openapi.yaml> <answer.json>;
// prints the port it listens on. answer.json: {"headers": [["content-type", "application/json"], ...], "body": {...}}.
import fs from 'node:fs';
import addFormats from 'ajv-formats';
import Koa from 'koa';
import bodyparser from 'koa-bodyparser';
import { OpenAPIBackend, type Context, type Request } from 'openapi-backend';

const [definition, answerFile] = process.argv.slice(2);
if (definition === undefined || answerFile === undefined) throw new Error('usage: openapi-backend-koa.ts <openapi.yaml> <answer.json>');
const answer = JSON.parse(fs.readFileSync(answerFile, 'utf8')) as { headers: [string, string][]; body: unknown };

const api = new OpenAPIBackend({
  definition,
  customizeAjv: (ajv) => {
    addFormats.default(ajv, { mode: 'full' });
    return ajv;
  },
});
api.register({
  getJumpbar: (_c: Context, ctx: Koa.Context) => {
    for (const [name, value] of answer.headers) ctx.set(name, value);
    return answer.body;
  },
  validationFail: (c: Context, ctx: Koa.Context) => {
    ctx.status = 400;
    ctx.body = { err: c.validation.errors };
  },
  notFound: (_c: Context, ctx: Koa.Context) => {
    ctx.status = 404;
    ctx.body = { err: 'not found' };
  },
  notImplemented: (_c: Context, ctx: Koa.Context) => {
    ctx.status = 501;
    ctx.body = { err: 'not implemented' };
  },
  postResponseHandler: (c: Context, ctx: Koa.Context) => {
    // the handlers above that answer by themselves return nothing
    if (c.response === undefined) return;
    const valid = c.api.validateResponse(c.response, c.operation);
    if (valid.errors) {
      ctx.status = 502;
      ctx.body = { status: 502, err: valid.errors };
      return;
    }
    ctx.status = 200;
    ctx.body = c.response;
  },
});
api.registerSecurityHandler('bearerAuth', () => true);
await api.init();

const app = new Koa();
app.use(bodyparser());
// Koa's request as it is, as the README passes it (its header type allows undefined values, the library's does not)
app.use((ctx) => api.handleRequest(ctx.request as Request, ctx));
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
server.keepAliveTimeout = 5000; // as src/server.ts
process.on('SIGTERM', () => server.close(() => process.exit(0)));
