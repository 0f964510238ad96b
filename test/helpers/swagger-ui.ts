import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import YAML from 'yaml';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** One operation of openapi.yaml as Swagger UI shows it: under its first tag. */
export interface DocumentedOperation {
  tag: string;
  operationId: string;
  method: string;
  path: string;
}

/** Every operation of openapi.yaml, with the first tag Swagger UI files it under. */
export function documentedOperations(root = process.cwd()): DocumentedOperation[] {
  const doc = YAML.parse(fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8'));
  const operations: DocumentedOperation[] = [];
  for (const [route, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op !== undefined) operations.push({ tag: op.tags?.[0] ?? 'default', operationId: op.operationId, method: method.toUpperCase(), path: route });
    }
  }
  return operations;
}

/** Swagger UI's element of one operation: `operations-<tag>-<operationId>` (spaces become `_`). */
export const operationBlock = (page: Page, tag: string, operationId: string): Locator =>
  page.locator(`[id="${`operations-${tag}-${operationId}`.replace(/\s/g, '_')}"]`);

/** What the live responses table shows after Execute. */
export interface LiveResponse {
  /** The response code cell ("200"; "Undocumented" when the request failed). */
  status: string;
  /** The response body as shown ('' when there is none). */
  body: string;
  /** The "Request URL" Swagger UI sent the request to ('' when it shows none). */
  requestUrl: string;
  /** All text of the details cell (a failed request's reason, headers, duration): for failure messages. */
  details: string;
}

/**
 * Opens /docs of `base` in a fresh browser context (own storage, so no authorization carries over) that may only
 * reach `base`, in a window of `viewport` (Playwright's 1280×720 when not given); resolves once Swagger UI has
 * rendered the operations. Uncaught page errors are collected in `errors`.
 */
export async function openDocs(
  browser: Browser,
  base: string,
  viewport?: { width: number; height: number },
): Promise<{ context: BrowserContext; page: Page; errors: Error[] }> {
  const context = await browser.newContext(viewport === undefined ? {} : { viewport });
  const origin = new URL(base).origin;
  // everything Swagger UI needs is served by the server itself; anything else would hang on a machine without internet
  await context.route((url) => url.origin !== origin, (route) => route.abort());
  const page = await context.newPage();
  // a missing element fails in seconds, with the locator in the message, well within the test's own timeout
  page.setDefaultTimeout(10_000);
  const errors: Error[] = [];
  page.on('pageerror', (error) => errors.push(error));
  await page.goto(`${base}/docs`);
  await page.locator('.swagger-ui .opblock').first().waitFor();
  return { context, page, errors };
}

/** Expands an operation not run yet in this page, presses "Try it out" and "Execute", and reads the live response. */
export async function tryItOut(page: Page, tag: string, operationId: string): Promise<LiveResponse> {
  const block = operationBlock(page, tag, operationId);
  await block.locator('.opblock-summary-control').click();
  await block.locator('button.try-out__btn').click();
  await block.locator('button.execute').click();
  // the code cell of the first body row, not the "Code" header cell; the row is rendered whole, body included
  const row = block.locator('.live-responses-table tbody tr.response');
  const status = row.locator('td.response-col_status');
  await status.waitFor();
  const details = row.locator('td.response-col_description');
  const textOf = async (locator: Locator): Promise<string> => ((await locator.count()) > 0 ? ((await locator.textContent()) ?? '') : '');
  return {
    status: (await textOf(status)).trim(),
    requestUrl: (await textOf(block.locator('.request-url pre'))).trim(),
    body: await textOf(details.locator('.highlight-code pre')),
    details: (await textOf(details)).trim(),
  };
}

/** Clicks "Authorize", enters a bearer token for `scheme`, applies it and closes the dialog. */
export async function authorizeBearer(page: Page, token: string, scheme = 'bearerAuth'): Promise<void> {
  await page.locator('.auth-wrapper button.authorize').click();
  const dialog = page.locator('.dialog-ux .modal-ux');
  const form = dialog.locator('.auth-container').filter({ hasText: scheme });
  await form.locator('input#auth-bearer-value').fill(token);
  await form.locator('button.authorize').click();
  // an applied token shows as masked text and the button turns into "Logout"
  await form.getByRole('button', { name: 'Remove authorization' }).waitFor();
  await dialog.locator('button.btn-done').click();
  await dialog.waitFor({ state: 'detached' });
}
